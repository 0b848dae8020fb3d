"""Python `mcp` 2.3.0 against knot-tools: discover, list, call a plugin tool and a user tool.

Usage: python list_and_call.py URL TOKEN PLUGIN_TOOL USER_TOOL — prints one JSON line.
"""
import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def main() -> None:
    url, token, plugin_tool, user_tool = sys.argv[1:5]
    # trust_env=False: a test reaches 127.0.0.1 directly, never through a configured proxy.
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, trust_env=False)
    async with Client(streamable_http_client(url, http_client=http)) as client:
        tools = await client.list_tools()
        plugin = await client.call_tool(plugin_tool, {})
        user = await client.call_tool(user_tool, {"text": "from python"})
        print(json.dumps({
            "protocolVersion": client.protocol_version,
            "tools": [tool.name for tool in tools.tools],
            "plugin": [block.text for block in plugin.content if block.type == "text"],
            "user": user.structured_content,
            "userError": user.is_error,
        }))


asyncio.run(main())
