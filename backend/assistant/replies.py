"""The offline assistant's wording, in English and Japanese; rendering only, no decisions."""

from __future__ import annotations

from ambient.contract import EDIT
from backend.assistant import skills, tools

HELP = {
    "en": 'I can work with the note you have open: summarise it ("summarise this"), list its '
    "open and done tasks, count its words and characters, or quote the text you selected. I can "
    'propose changes for you to apply: "add a todo: buy milk", "mark buy milk as done", '
    '"append: …", "add a heading: Ideas". I can '
    'also list your notes ("what notes do I have?"), find notes that mention a word '
    '("which notes mention budget?"), or read a note by name ("summarise plan.md").',
    "ja": "開いているノートについて、要約（「このノートを要約して」）、未完了・完了のタスク、"
    "文字数・語数、選択したテキストの引用ができます。「タスクを追加: 牛乳を買う」"
    "「牛乳を買うを完了にして」「追記：…」「見出しを追加：…」のような変更も、"
    "適用前に確認できる提案として作れます。ノートの一覧（「ノートの一覧を見せて」）、"
    "ある言葉を含むノートの検索（「「予算」を含むノートは？」）、名前を指定したノートの読み取り"
    "（「plan.md を要約して」）もできます。",
}

NO_NOTE = {
    "en": "I don't see a note open right now, so I'm not sure which note you mean. Which note "
    'should I look at? Name it (for example "summarise plan.md") or ask "what notes do I '
    'have?" for a listing.',
    "ja": "いま開いているノートが見当たらないため、どのノートのことか分かりません。"
    "どのノートを見ればよいですか？ノート名で指定するか（例：「plan.md を要約して」）、"
    "「ノートの一覧を見せて」と聞いてください。",
}

_JA_FAILURES = {
    tools.NO_ROW: "この会話にはワークスペースを読む権限がいまありません。"
    "ワークスペースからもう一度送信してください。",
    tools.EXPIRED: "前回のメッセージで得た読み取り権限の期限が切れました。"
    "新しいメッセージを送ると更新されます。",
    tools.NO_KEY_SESSION: "有効なキーセッションがないため、ワークスペースを読めません。"
    "ページを再読み込みするかワークスペースを切り替えてから、もう一度送信してください。",
    tools.KEY_SESSION_INVALID: "キーセッションが期限切れか無効なため、ワークスペースを読めません。"
    "ページを再読み込みするかワークスペースを切り替えてから、もう一度送信してください。",
    tools.NOT_MEMBER: "このワークスペースへのアクセス権がありません。",
    tools.MISSING_DOCUMENT: "そのパスのノートはこのワークスペースにありません。",
    tools.BAD_PATH: "ノートのパスとして正しくありません（例：notes/plan.md）。",
}

STALE_JA = "注意：保存されたコピーは画面上の内容より古い可能性があります。"


def failure(result: dict, lang: str) -> str:
    if lang == "ja":
        return _JA_FAILURES.get(result.get("reason"), _JA_FAILURES[tools.NO_ROW])
    return result["text"]


def not_found(name_hint: str | None, lang: str) -> str:
    if lang == "ja":
        return "そのノートが見つかりませんでした。「ノートの一覧を見せて」で確認できます。"
    return 'I couldn\'t find a note by that name. Ask "what notes do I have?" for a listing.'


def listing(result: dict, lang: str) -> str:
    docs = result["documents"]
    if not docs:
        return (
            "このワークスペースにはまだノートがありません。"
            if lang == "ja"
            else ("This workspace has no notes yet.")
        )
    lines = "\n".join(f"- {d['path']}" for d in docs)
    if lang == "ja":
        return f"ワークスペース「{result['workspaceId']}」のノート（{len(docs)} 件）：\n{lines}"
    return f"You have {len(docs)} note{'s' * (len(docs) != 1)} in {result['workspaceId']}:\n{lines}"


def partial_note(result: dict, lang: str) -> str:
    shown = len(result["content"].encode("utf-8"))
    if lang == "ja":
        return (
            f"（長いノートのため、先頭の {shown:,} / {result['bytes']:,} バイトだけを読みました。）"
        )
    return f"(The note is long: I read the first {shown:,} of its {result['bytes']:,} bytes.)"


def _join(sentences: list[str], lang: str) -> str:
    """Sentences run on; list items (no closing punctuation) are separated by ; or 、."""
    out = ""
    for sentence in sentences:
        if out:
            ended = out[-1] in ".!?:。！？：…"
            out += ("" if ended else "、") if lang == "ja" else (" " if ended else "; ")
        out += sentence
    return out


def summary(path: str, text: str, lang: str, partial: bool = False) -> str:
    s = skills.summarize(text)
    if not s.sections:
        return f"「{path}」は空です。" if lang == "ja" else f"{path} is empty."
    out = [f"「{path}」の要約です：" if lang == "ja" else f"Summary of {path}:"]
    sep = "：" if lang == "ja" else " — "
    for section in s.sections:
        body = _join(section.sentences, lang)
        if section.heading and body:
            out.append(f"- {section.heading}{sep}{body}")
        elif section.heading:
            out.append(f"- {section.heading}")
        else:
            out.append(f"- {body}")
    report = skills.todo_report(text)
    if lang == "ja":
        tail = f"{s.chars:,} 文字"
        if report.open or report.done:
            tail = f"タスク：未完了 {len(report.open)} 件、完了 {len(report.done)} 件。{tail}"
        out.append(tail + ("（読み取った部分のみ）" if partial else "") + "。")
    else:
        tail = f"{s.words:,} words"
        if report.open or report.done:
            tail = f"Tasks: {len(report.open)} open, {len(report.done)} done. {tail}"
        out.append(tail + (" in the part I read" if partial else "") + ".")
    return "\n".join(out)


def todos(path: str, text: str, lang: str, partial: bool = False) -> str:
    report = skills.todo_report(text)
    if partial:
        body = todos(path, text, lang)
        if lang == "ja":
            return body + "\n（ノートが長いため、読み取った部分のタスクだけです。）"
        return body + "\n(These are the tasks in the part I read; the note is longer.)"
    if not report.open and not report.done:
        if lang == "ja":
            return f"「{path}」にはタスク項目（- [ ] …）がありません。"
        return f"{path} has no task items (- [ ] …)."
    out = []
    if lang == "ja":
        out.append(f"「{path}」の未完了タスク（{len(report.open)} 件）：")
    else:
        out.append(f"Open tasks in {path} ({len(report.open)}):")
    out += [f"- [ ] {t.text} (line {t.line})" for t in report.open] or ["- —"]
    out.append(
        f"完了（{len(report.done)} 件）：" if lang == "ja" else f"Done ({len(report.done)}):"
    )
    out += [f"- [x] {t.text} (line {t.line})" for t in report.done] or ["- —"]
    return "\n".join(out)


def counts(path: str, text: str, lang: str, total_bytes: int | None = None) -> str:
    """Sizes of the note; `total_bytes` (a partial read) makes them about the part read only."""
    c = skills.counts(text)
    if total_bytes is not None and total_bytes > c.bytes:
        if lang == "ja":
            return (
                f"「{path}」は {total_bytes:,} バイトの長いノートで、読み取ったのは先頭の "
                f"{c.bytes:,} バイトだけです。その部分だけで {c.chars:,} 文字（空白を除くと "
                f"{c.chars_no_spaces:,} 文字）、{c.words:,} 語、{c.lines:,} 行です。"
                "ノート全体の数ではありません。"
            )
        return (
            f"{path} is long ({total_bytes:,} bytes) and I read only its first {c.bytes:,} "
            f"bytes. That part alone has {c.words:,} words and {c.chars:,} characters "
            f"({c.chars_no_spaces:,} without spaces) on {c.lines:,} lines; these are not the "
            "counts of the whole note."
        )
    if lang == "ja":
        return (
            f"「{path}」は {c.chars:,} 文字（空白を除くと {c.chars_no_spaces:,} 文字）、"
            f"{c.words:,} 語、{c.lines:,} 行です（保存サイズ {c.bytes:,} バイト）。"
        )
    return (
        f"{path} has {c.words:,} words and {c.chars:,} characters "
        f"({c.chars_no_spaces:,} without spaces) on {c.lines:,} lines; {c.bytes:,} bytes saved."
    )


def mentions(term: str, found: list[skills.Mention], searched: int, total: int, lang: str) -> str:
    if lang == "ja":
        head = (
            f"「{term}」を含むノート（{len(found)} 件）："
            if found
            else f"「{term}」を含むノートはありませんでした。"
        )
        lines = [f"- {m.path}（{m.count} 回、最初は {m.line} 行目：{m.snippet}）" for m in found]
        more = [f"（{total} 件中 {searched} 件を検索しました。）"] if searched < total else []
    else:
        head = (
            f'Notes mentioning "{term}" ({len(found)}):' if found else f'No note mentions "{term}".'
        )
        lines = [
            f"- {m.path} ({m.count} time{'s' * (m.count != 1)}, first on line {m.line}: "
            f"{m.snippet})"
            for m in found
        ]
        more = [f"(I searched the first {searched} of {total} notes.)"] if searched < total else []
    return "\n".join([head, *lines, *more])


def quote(path: str, result: dict, lang: str) -> str:
    """Quote the selection recorded with the pointer, when the saved copy can be trusted."""
    selection = result.get("selection")
    if result.get("view") != EDIT or selection is None:
        if lang == "ja":
            return (
                f"「{path}」は編集ビューで開かれていないため、選択範囲がありません。"
                "編集ビューでテキストを選択してから、もう一度聞いてください。"
            )
        return (
            f"{path} is not open in the Edit view, so there is no text selection. Select some "
            "text in the Edit view and ask again."
        )
    if result.get("partial"):
        if lang == "ja":
            return "ノートが長すぎて、選択範囲が保存内容と一致するか確認できません。"
        return (
            "The note is too long for me to check that your selection matches the saved copy, "
            "so I won't guess at it."
        )
    if result.get("stale"):
        if lang == "ja":
            return (
                "保存されたコピーが画面の内容より古いため、選択範囲を正確に引用できません。"
                "保存してからもう一度聞いてください。"
            )
        return (
            "I can't quote your selection reliably: the saved copy differs from what's on screen, "
            "so the positions may not match. Let the note save, then ask again."
        )
    text = result["content"]
    picked = skills.quote_selection(text, selection["anchor"], selection["head"])
    if not picked:
        line = skills.line_of(text, selection["head"])
        if lang == "ja":
            return f"何も選択されていません（カーソルは {line} 行目にあります）。"
        return f"Nothing is selected: the cursor is on line {line} of {path}."
    first = skills.line_of(text, min(selection["anchor"], selection["head"]))
    quoted = "\n".join(f"> {line}" for line in picked.split("\n"))
    if lang == "ja":
        return f"「{path}」の {first} 行目からの選択部分です：\n{quoted}"
    return f"You selected (from line {first} of {path}):\n{quoted}"


# --- Limits, the switched-off chip, and edit proposals --------------------------------------

NO_NOTE_OFF = {
    "en": '"This note" is switched off for this conversation, so I can\'t see which note you '
    'have open. Name the note (for example "summarise plan.md"), or switch "this note" back '
    "on with the chip above the chat.",
    "ja": "この会話では「このノート」がオフになっているため、開いているノートを参照できません。"
    "ノート名で指定するか（例：「plan.md を要約して」）、チャット上部のチップで"
    "「このノート」をオンに戻してください。",
}

_BEYOND_WHAT = {
    "rewrite": {"en": "rewrite or polish text", "ja": "文章の書き直しや推敲"},
    "translate": {"en": "translate text", "ja": "翻訳"},
    "explain": {"en": "explain things", "ja": "説明や解説"},
    "world": {"en": "answer questions about the world", "ja": "一般的な質問への回答"},
}


def beyond(what: str, lang: str) -> str:
    """A plain "I can't do that" for a request only a language model can handle."""
    thing = _BEYOND_WHAT.get(what, _BEYOND_WHAT["world"])[lang]
    if lang == "ja":
        return (
            f"ごめんなさい、{thing}はできません。私は言語モデルを使わずに動く組み込みの"
            "アシスタントです。言語モデル（Ollama、llama.cpp のサーバー、OpenAI など）を"
            "設定すると、"
            "そのモデルが対応できます。私にできるのは、開いているノートの要約、タスクの一覧、"
            "文字数のカウント、タスクの追加や完了、末尾への追記、見出しの追加です。"
        )
    return (
        f"Sorry, I can't {thing}: I'm the built-in assistant, which works without a language "
        "model. A configured language model (Ollama, a llama.cpp server, OpenAI, ...) could do "
        "it. What I can do with your note: summarise it, list its tasks, count its words, add "
        "a todo, mark one done or not done, append a line or a paragraph, or add a heading."
    )


def _q(text: str, lang: str) -> str:
    return f"「{text}」" if lang == "ja" else f"“{text}”"


_REVIEW = {
    "en": "Nothing changes until you press Apply on the proposal below (or Discard it).",
    "ja": "下の提案で「適用」を押すまでノートは変わりません（不要なら「破棄」してください）。",
}


def proposed_todo(path: str, task: str, after: str | None, lang: str) -> str:
    if lang == "ja":
        where = f"最後のタスク{_q(after, lang)}の後" if after else "末尾"
        return (
            f"「{path}」の{where}にタスク{_q(task, lang)}を追加する変更を提案しました。"
            + _REVIEW["ja"]
        )
    where = f"after the last task ({_q(after, lang)})" if after else "at the end"
    return f"I've proposed adding the task {_q(task, lang)} to {path} {where}. " + _REVIEW["en"]


def proposed_mark(path: str, task: str, done: bool, lang: str) -> str:
    if lang == "ja":
        state = "完了" if done else "未完了"
        return (
            f"「{path}」のタスク{_q(task, lang)}を{state}にする変更を提案しました。" + _REVIEW["ja"]
        )
    state = "done" if done else "not done"
    return f"I've proposed marking {_q(task, lang)} in {path} as {state}. " + _REVIEW["en"]


def proposed_append(path: str, paragraph: bool, lang: str) -> str:
    if lang == "ja":
        what = "段落" if paragraph else "行"
        return f"「{path}」の末尾に{what}を追記する変更を提案しました。" + _REVIEW["ja"]
    what = "a paragraph" if paragraph else "a line"
    return f"I've proposed appending {what} to the end of {path}. " + _REVIEW["en"]


def proposed_heading(path: str, line: str, lang: str) -> str:
    if lang == "ja":
        return (
            f"「{path}」の末尾に見出し{_q(line, lang)}を追加する変更を提案しました。"
            + _REVIEW["ja"]
        )
    return (
        f"I've proposed adding the heading {_q(line, lang)} at the end of {path}. " + _REVIEW["en"]
    )


def mark_problem(path: str, query: str, outcome: str, candidates: list, done: bool, lang: str):
    """Why no task was marked: none matches, already in that state, or which one is meant."""
    if outcome == "ambiguous":
        names = [f"- {c.text} (line {c.line})" for c in candidates]
        if lang == "ja":
            names = [f"- {c.text}（{c.line} 行目）" for c in candidates]
            return (
                f"「{path}」には{_q(query, lang)}を含むタスクが {len(candidates)} 件あります。"
                "どれのことですか？もう少し詳しく指定してください：\n" + "\n".join(names)
            )
        return (
            f"More than one task in {path} matches {_q(query, lang)}. Which one do you mean? "
            "Tell me a little more of its text:\n" + "\n".join(names)
        )
    if outcome == "already":
        if lang == "ja":
            state = "完了" if done else "未完了"
            return f"{_q(query, lang)}を含むタスクはすでに{state}になっています。"
        state = "done" if done else "open"
        return f"The task matching {_q(query, lang)} in {path} is already {state}."
    if lang == "ja":
        return f"「{path}」に{_q(query, lang)}を含むタスクが見つかりませんでした。"
    return f"I couldn't find a task containing {_q(query, lang)} in {path}."


def edit_refused(result: dict, lang: str) -> str:
    """propose_edit said no (the note changed meanwhile, or the result is too large)."""
    if lang == "ja":
        if result.get("reason") == "edit_too_large":
            return "変更後のノートが大きすぎる（1 MiB 超）ため、提案できませんでした。"
        return (
            "ノートの内容が読み取った時点から変わったため、変更を提案できませんでした。"
            "もう一度お試しください。"
        )
    return f"I couldn't prepare that change: {result.get('text', '')}"


def search_results(term: str, results: list[dict], lang: str) -> str:
    """The notes the search service found for a "which notes mention …" request."""
    if lang == "ja":
        if not results:
            return f"「{term}」を含むノートはありませんでした。"
        lines = [f"- {r['path']}（{r['line']} 行目：{r['snippet']}）" for r in results]
        return "\n".join([f"「{term}」を含むノート（{len(results)} 件）：", *lines])
    if not results:
        return f'No note mentions "{term}".'
    lines = [f"- {r['path']} (line {r['line']}: {r['snippet']})" for r in results]
    return "\n".join([f'Notes mentioning "{term}" ({len(results)}):', *lines])
