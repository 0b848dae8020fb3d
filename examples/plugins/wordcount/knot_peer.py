"""A tiny knot-tools peer library: JSON-RPC 2.0, one JSON object per line on stdin/stdout.

    from knot_peer import Peer, KnotError
    peer = Peer(name="wordcount", version="1.0.0", manifest={...}, fetcher=True)

    @peer.function
    def count_words(request, ctx):
        return {"words": len(request["params"].get("text", "").split())}

    peer.run()

A function takes the handler request ({method, path, params, config, user}) and a context whose
`call(plugin, handler, params, method=None)` reaches another plugin's declared handler as the
user of the call being served (the host gates it). Raise KnotError(code, message) to answer with
one of the product's error codes; anything else is "handler failed".
"""
import base64
import json
import os
import sys


class KnotError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class _Context:
    def __init__(self, peer, call_id):
        self._peer = peer
        self._call_id = call_id

    def call(self, plugin, handler, params=None, method=None):
        args = {"plugin": plugin, "handler": handler, "params": params or {}, "callId": self._call_id}
        if method:
            args["method"] = method
        return self._peer._request("call", args)

    def log(self, message, level="info"):
        self._peer.log(message, level)


class Peer:
    def __init__(self, name, version, manifest=None, description="", fetcher=False, root=None):
        self.name = name
        self.version = version
        self.manifest = manifest
        self.description = description
        self.fetcher = fetcher
        self.root = root or os.getcwd()
        self.functions = {}
        self._next_id = 1
        self._deferred = []  # host requests that arrived while we waited for an answer
        self._running = True

    def function(self, fn):
        self.functions[fn.__name__] = fn
        return fn

    def log(self, message, level="info"):
        self._send({"jsonrpc": "2.0", "method": "log", "params": {"level": level, "message": str(message)}})

    def _send(self, message):
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def _read(self):
        line = sys.stdin.readline()
        if line == "":
            raise SystemExit(0)
        return json.loads(line)

    def _request(self, method, params):
        request_id = self._next_id
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            message = self._read()
            if "method" in message:
                self._deferred.append(message)
            elif message.get("id") == request_id:
                if "error" in message:
                    error = message["error"]
                    raise KnotError((error.get("data") or {}).get("code", "HANDLER_FAILED"), error.get("message", "error"))
                return message.get("result")

    def _answer(self, message):
        method, params, request_id = message["method"], message.get("params") or {}, message.get("id")
        try:
            result = self._dispatch(method, params)
            reply = {"jsonrpc": "2.0", "id": request_id, "result": result}
        except KnotError as error:
            reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32000, "message": error.message, "data": {"code": error.code}}}
        except Exception as error:  # noqa: BLE001 - any failure is "handler failed" for the caller
            sys.stderr.write("%s failed: %r\n" % (method, error))
            reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": "handler failed"}}
        if request_id is not None:
            self._send(reply)

    def _dispatch(self, method, params):
        if method == "initialize":
            answer = {"name": self.name, "version": self.version, "description": self.description, "functions": sorted(self.functions)}
            if self.manifest is not None:
                answer["manifest"] = {"tool.knot": self.manifest}
            if self.fetcher:
                answer["fetcher"] = True
            return answer
        if method == "call":
            fn = self.functions.get(params.get("function"))
            if fn is None:
                raise KnotError("NOT_ADDRESSABLE", "no such function")
            return fn(params.get("request") or {}, _Context(self, params.get("callId")))
        if method == "fetch":
            path = os.path.normpath(os.path.join(self.root, params.get("path", "")))
            if not path.startswith(os.path.abspath(self.root) + os.sep) or not os.path.isfile(path):
                raise KnotError("NOT_FOUND", "no such file")
            with open(path, "rb") as handle:
                return {"content": base64.b64encode(handle.read()).decode("ascii")}
        if method == "shutdown":
            self._running = False
            return None
        raise KnotError("NOT_ADDRESSABLE", "unknown method %s" % method)

    def run(self):
        while self._running:
            message = self._deferred.pop(0) if self._deferred else self._read()
            if "method" in message:
                self._answer(message)
