/** A side-by-side diff (CodeMirror merge view) of an earlier version against the editor's code. */
import { javascript } from "@codemirror/lang-javascript";
import { MergeView } from "@codemirror/merge";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { basicSetup } from "codemirror";
import { useEffect, useRef } from "preact/hooks";

export function DiffView({ before, after, language }: { before: string; after: string; language: "js" | "ts" }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const extensions = [basicSetup, javascript({ typescript: language === "ts" }), EditorState.readOnly.of(true), EditorView.editable.of(false)];
    const view = new MergeView({ a: { doc: before, extensions }, b: { doc: after, extensions }, parent: host.current!, collapseUnchanged: { margin: 3, minSize: 6 } });
    return () => view.destroy();
  }, [before, after, language]);
  return <div class="diff-view" ref={host} />;
}
