/**
 * The code editor: CodeMirror 6 with JavaScript (or TypeScript) highlighting, completion of
 * importable modules and their names, and the server's diagnostics (`/api/tools/check`) shown
 * inline as you type (debounced). Ctrl/Cmd-S saves.
 */
import { autocompletion } from "@codemirror/autocomplete";
import { javascript } from "@codemirror/lang-javascript";
import { linter, lintGutter, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import { Compartment, EditorState, Prec, type Text } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { basicSetup } from "codemirror";
import { useEffect, useRef } from "preact/hooks";
import { api, type Diagnostic } from "../lib/api.ts";
import { moduleCompletions, type EditorModule } from "./completions.ts";

export interface CodeEditorProps {
  /** The initial document, and the document to switch to when `revision` changes. */
  value: string;
  revision: number;
  language: "js" | "ts";
  kind: "tool" | "lib" | "sink";
  readOnly: boolean;
  modules: readonly EditorModule[];
  onChange(code: string): void;
  onSave(): void;
  onDiagnostics(diagnostics: Diagnostic[]): void;
  /** Receives the view, so others (the problems list) can move the cursor. */
  onView?(view: EditorView | null): void;
}

export const LINT_DELAY_MS = 400;

/** 1-based line/column (UTF-16) → a document offset, clamped into the document. */
export function offsetOf(doc: Text, line: number, column: number): number {
  const l = doc.line(Math.min(Math.max(1, line), doc.lines));
  return Math.min(l.to, l.from + Math.max(0, column - 1));
}

export function CodeEditor(props: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const language = useRef(new Compartment());
  const editable = useRef(new Compartment());

  useEffect(() => {
    const check = linter(async (v): Promise<CmDiagnostic[]> => {
      const code = v.state.doc.toString();
      let diagnostics: Diagnostic[];
      try {
        ({ diagnostics } = await api<{ diagnostics: Diagnostic[] }>("POST", "/api/tools/check", { code, language: latest.current.language, kind: latest.current.kind }));
      } catch {
        return [];
      }
      if (v.state.doc.toString() !== code) return [];
      latest.current.onDiagnostics(diagnostics);
      const doc = v.state.doc;
      return diagnostics.map((d) => {
        const from = offsetOf(doc, d.line, d.column);
        let to = d.endLine !== undefined && d.endColumn !== undefined ? offsetOf(doc, d.endLine, d.endColumn) : from;
        if (to <= from) to = Math.min(doc.length, from + 1);
        return { from, to, severity: d.severity, message: d.message, source: d.code };
      });
    }, { delay: LINT_DELAY_MS });

    const completeModules = moduleCompletions(() => latest.current.modules);
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: props.value,
        extensions: [
          basicSetup,
          language.current.of(javascript({ typescript: props.language === "ts" })),
          editable.current.of([EditorState.readOnly.of(props.readOnly), EditorView.editable.of(!props.readOnly)]),
          // One source function for the editor's life: completion tells sources apart by identity.
          EditorState.languageData.of(() => [{ autocomplete: completeModules }]),
          autocompletion({ activateOnTyping: true }),
          check,
          lintGutter(),
          Prec.highest(keymap.of([{ key: "Mod-s", preventDefault: true, run: () => (latest.current.onSave(), true) }])),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
          }),
          EditorView.contentAttributes.of({ "aria-label": "Tool source code" }),
        ],
      }),
    });
    view.current = v;
    props.onView?.(v);
    return () => {
      props.onView?.(null);
      v.destroy();
      view.current = null;
    };
  }, []);

  // The editor owns its document; `value` is pushed into it only when `revision` changes (a restore).
  // Echoing every `value` back would race typing: the effect runs after render, with a stale value.
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== props.value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: props.value } });
  }, [props.revision]);
  useEffect(() => {
    view.current?.dispatch({ effects: language.current.reconfigure(javascript({ typescript: props.language === "ts" })) });
  }, [props.language]);
  useEffect(() => {
    view.current?.dispatch({ effects: editable.current.reconfigure([EditorState.readOnly.of(props.readOnly), EditorView.editable.of(!props.readOnly)]) });
  }, [props.readOnly]);

  return <div class="code-editor" ref={host} />;
}
