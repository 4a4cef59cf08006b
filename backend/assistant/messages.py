"""Everything the assistant says in its own words, one table keyed by message and language.

`say(key, lang, **fields)` fills a message's `{fields}` (values are inserted as they are, never
read as templates). Every key has a text in every language of `language.LANGS`, with the same
fields; tests/unit/test_messages.py checks that.
"""

from __future__ import annotations

from backend.assistant.language import Lang

_CAN_DO = {
    "en": "What I can do with your note: summarise it, list its tasks, count its words, add a "
    "todo, mark one done or not done, append a line or a paragraph, or add a heading; and I can "
    "list your notes or find the ones that mention a word.",
    "ja": "私にできるのは、開いているノートの要約、タスクの一覧、文字数のカウント、タスクの追加や"
    "完了、末尾への追記、見出しの追加、ノートの一覧と言葉を含むノートの検索です。",
}
_NEEDS_MODEL = {
    "en": "I'm the built-in assistant, which works without a language model; a configured "
    "language model (Ollama, a llama.cpp server, OpenAI, ...) could do it.",
    "ja": "私は言語モデルを使わずに動く組み込みのアシスタントです。言語モデル（Ollama、"
    "llama.cpp のサーバー、OpenAI など）を設定すると、そのモデルが対応できます。",
}
_REVIEW = {
    "en": "Nothing changes until you press Apply on the proposal below (or Discard it).",
    "ja": "下の提案で「適用」を押すまでノートは変わりません（不要なら「破棄」してください）。",
}

MESSAGES: dict[str, dict[Lang, str]] = {
    # --- The chat's offline agent --------------------------------------------------------
    "help": {
        "en": 'I can work with the note you have open: summarise it ("summarise this"), list '
        "its open and done tasks, count its words and characters, or quote the text you "
        'selected. I can propose changes for you to apply: "add a todo: buy milk", "mark buy '
        'milk as done", "append: …", "add a heading: Ideas". I can also list your notes ("what '
        'notes do I have?"), find notes that mention a word ("which notes mention budget?"), or '
        'read a note by name ("summarise plan.md").',
        "ja": "開いているノートについて、要約（「このノートを要約して」）、未完了・完了のタスク、"
        "文字数・語数、選択したテキストの引用ができます。「タスクを追加: 牛乳を買う」"
        "「牛乳を買うを完了にして」「追記：…」「見出しを追加：…」のような変更も、"
        "適用前に確認できる提案として作れます。ノートの一覧（「ノートの一覧を見せて」）、"
        "ある言葉を含むノートの検索（「「予算」を含むノートは？」）、名前を指定したノートの"
        "読み取り（「plan.md を要約して」）もできます。",
    },
    "no_note": {
        "en": "I don't see a note open right now, so I'm not sure which note you mean. Which "
        'note should I look at? Name it (for example "summarise plan.md") or ask "what notes '
        'do I have?" for a listing.',
        "ja": "いま開いているノートが見当たらないため、どのノートのことか分かりません。"
        "どのノートを見ればよいですか？ノート名で指定するか（例：「plan.md を要約して」）、"
        "「ノートの一覧を見せて」と聞いてください。",
    },
    "no_note_off": {
        "en": '"This note" is switched off for this conversation, so I can\'t see which note '
        'you have open. Name the note (for example "summarise plan.md"), or switch "this note" '
        "back on with the chip above the chat.",
        "ja": "この会話では「このノート」がオフになっているため、開いているノートを参照できません。"
        "ノート名で指定するか（例：「plan.md を要約して」）、チャット上部のチップで"
        "「このノート」をオンに戻してください。",
    },
    "not_found": {
        "en": 'I couldn\'t find a note by that name. Ask "what notes do I have?" for a listing.',
        "ja": "そのノートが見つかりませんでした。「ノートの一覧を見せて」で確認できます。",
    },
    "stale_note": {
        # Before the caveat, which is relayed verbatim (in English) whatever the language.
        "en": "{caveat}",
        "ja": "注意：保存されたコピーは画面上の内容より古い可能性があります。\n{caveat}",
    },
    # Access failures: English is the tool's own message; Japanese says the same.
    "failure.no_delivery_row": {
        "en": "{text}",
        "ja": "この会話にはワークスペースを読む権限がいまありません。"
        "ワークスペースからもう一度送信してください。",
    },
    "failure.expired": {
        "en": "{text}",
        "ja": "前回のメッセージで得た読み取り権限の期限が切れました。"
        "新しいメッセージを送ると更新されます。",
    },
    "failure.no_key_session": {
        "en": "{text}",
        "ja": "有効なキーセッションがないため、ワークスペースを読めません。"
        "ページを再読み込みするかワークスペースを切り替えてから、もう一度送信してください。",
    },
    "failure.key_session_invalid": {
        "en": "{text}",
        "ja": "キーセッションが期限切れか無効なため、ワークスペースを読めません。"
        "ページを再読み込みするかワークスペースを切り替えてから、もう一度送信してください。",
    },
    "failure.not_member": {
        "en": "{text}",
        "ja": "このワークスペースへのアクセス権がありません。",
    },
    "failure.missing_document": {
        "en": "{text}",
        "ja": "そのパスのノートはこのワークスペースにありません。",
    },
    "failure.bad_path": {
        "en": "{text}",
        "ja": "ノートのパスとして正しくありません（例：notes/plan.md）。",
    },
    # Listing and search
    "listing.empty": {
        "en": "This workspace has no notes yet.",
        "ja": "このワークスペースにはまだノートがありません。",
    },
    "listing.head": {
        "en": "You have {count} note{s} in {workspace}:",
        "ja": "ワークスペース「{workspace}」のノート（{count} 件）：",
    },
    "search.none": {
        "en": 'No note mentions "{term}".',
        "ja": "「{term}」を含むノートはありませんでした。",
    },
    "search.head": {
        "en": 'Notes mentioning "{term}" ({count}):',
        "ja": "「{term}」を含むノート（{count} 件）：",
    },
    "search.hit": {
        "en": "- {path} (line {line}: {snippet})",
        "ja": "- {path}（{line} 行目：{snippet}）",
    },
    "mentions.hit": {
        "en": "- {path} ({count} time{s}, first on line {line}: {snippet})",
        "ja": "- {path}（{count} 回、最初は {line} 行目：{snippet}）",
    },
    "mentions.more": {
        "en": "(I searched the first {searched} of {total} notes.)",
        "ja": "（{total} 件中 {searched} 件を検索しました。）",
    },
    # Reading a note
    "partial_note": {
        "en": "(The note is long: I read the first {shown:,} of its {total:,} bytes.)",
        "ja": "（長いノートのため、先頭の {shown:,} / {total:,} バイトだけを読みました。）",
    },
    "summary.empty": {"en": "{path} is empty.", "ja": "「{path}」は空です。"},
    "summary.head": {"en": "Summary of {path}:", "ja": "「{path}」の要約です："},
    "summary.heading_sep": {"en": " — ", "ja": "："},
    "summary.open_tasks": {
        "en": "Open tasks ({count}):",
        "ja": "未完了のタスク（{count} 件）：",
    },
    "summary.more_tasks": {"en": "- … and {count} more", "ja": "- …ほか {count} 件"},
    "summary.words": {"en": "{words:,} words", "ja": "{chars:,} 文字"},
    "summary.tasks": {
        "en": "Tasks: {open} open, {done} done. ",
        "ja": "タスク：未完了 {open} 件、完了 {done} 件。",
    },
    "summary.part_read": {"en": " in the part I read", "ja": "（読み取った部分のみ）"},
    "summary.end": {"en": ".", "ja": "。"},
    "todos.none": {
        "en": "{path} has no task items (- [ ] …).",
        "ja": "「{path}」にはタスク項目（- [ ] …）がありません。",
    },
    "todos.open": {
        "en": "Open tasks in {path} ({count}):",
        "ja": "「{path}」の未完了タスク（{count} 件）：",
    },
    "todos.done": {"en": "Done ({count}):", "ja": "完了（{count} 件）："},
    "todos.partial": {
        "en": "(These are the tasks in the part I read; the note is longer.)",
        "ja": "（ノートが長いため、読み取った部分のタスクだけです。）",
    },
    "task.open": {"en": "- [ ] {text} (line {line})", "ja": "- [ ] {text}（{line} 行目）"},
    "task.done": {"en": "- [x] {text} (line {line})", "ja": "- [x] {text}（{line} 行目）"},
    "task.plain": {"en": "- {text} (line {line})", "ja": "- {text}（{line} 行目）"},
    "counts": {
        "en": "{path} has {words:,} words and {chars:,} characters ({bare:,} without spaces) "
        "on {lines:,} lines; {bytes:,} bytes saved.",
        "ja": "「{path}」は {chars:,} 文字（空白を除くと {bare:,} 文字）、{words:,} 語、"
        "{lines:,} 行です（保存サイズ {bytes:,} バイト）。",
    },
    "counts.partial": {
        "en": "{path} is long ({total:,} bytes) and I read only its first {bytes:,} bytes. That "
        "part alone has {words:,} words and {chars:,} characters ({bare:,} without spaces) on "
        "{lines:,} lines; these are not the counts of the whole note.",
        "ja": "「{path}」は {total:,} バイトの長いノートで、読み取ったのは先頭の {bytes:,} バイト"
        "だけです。その部分だけで {chars:,} 文字（空白を除くと {bare:,} 文字）、{words:,} 語、"
        "{lines:,} 行です。ノート全体の数ではありません。",
    },
    # Quoting the selection
    "quote.not_edit": {
        "en": "{path} is not open in the Edit view, so there is no text selection. Select some "
        "text in the Edit view and ask again.",
        "ja": "「{path}」は編集ビューで開かれていないため、選択範囲がありません。"
        "編集ビューでテキストを選択してから、もう一度聞いてください。",
    },
    "quote.partial": {
        "en": "The note is too long for me to check that your selection matches the saved copy, "
        "so I won't guess at it.",
        "ja": "ノートが長すぎて、選択範囲が保存内容と一致するか確認できません。",
    },
    "quote.stale": {
        "en": "I can't quote your selection reliably: the saved copy differs from what's on "
        "screen, so the positions may not match. Let the note save, then ask again.",
        "ja": "保存されたコピーが画面の内容より古いため、選択範囲を正確に引用できません。"
        "保存してからもう一度聞いてください。",
    },
    "quote.nothing": {
        "en": "Nothing is selected: the cursor is on line {line} of {path}.",
        "ja": "何も選択されていません（カーソルは {line} 行目にあります）。",
    },
    "quote.head": {
        "en": "You selected (from line {line} of {path}):",
        "ja": "「{path}」の {line} 行目からの選択部分です：",
    },
    # What the offline agent cannot do (SPEC §8: say so plainly, never a summary instead)
    "beyond": {
        "en": "Sorry, I can't {thing}: " + _NEEDS_MODEL["en"] + " " + _CAN_DO["en"],
        "ja": "ごめんなさい、{thing}はできません。" + _NEEDS_MODEL["ja"] + _CAN_DO["ja"],
    },
    "beyond.rewrite": {"en": "rewrite or polish text", "ja": "文章の書き直しや推敲"},
    "beyond.translate": {"en": "translate text", "ja": "翻訳"},
    "beyond.explain": {"en": "explain things", "ja": "説明や解説"},
    "beyond.world": {"en": "answer questions about the world", "ja": "一般的な質問への回答"},
    "beyond.question": {
        "en": "answer questions like that about a note",
        "ja": "ノートについてのそのような質問への回答",
    },
    "beyond.compare": {"en": "compare notes", "ja": "ノートの比較"},
    "beyond.verb": {"en": 'do "{verb}"', "ja": "「{verb}」という依頼"},
    "beyond.history": {
        "en": "Sorry, I can't tell what you wrote or changed when: I read notes only as they are "
        "saved now, and neither I nor a language model can see their past versions. Open "
        "History in the note's frame to see its saved revisions, who made them and when. "
        + _CAN_DO["en"],
        "ja": "ごめんなさい、いつ何を書いたか・変えたかは分かりません。私はノートを保存された"
        "現在の内容でしか読めず、過去の版は私にも言語モデルにも見えません。ノートのフレームで"
        "「履歴」を開くと、保存された版と、誰がいつ保存したかを確認できます。" + _CAN_DO["ja"],
    },
    "beyond.app": {
        "en": "Sorry, I can't \"{verb}\" notes, and a language model couldn't either: the "
        "assistant only reads notes and proposes changes to their text. Use the notes list "
        "or the note's frame for that.",
        "ja": "ごめんなさい、ノートを「{verb}」することはできません（言語モデルでもできません）。"
        "アシスタントはノートを読み、本文の変更を提案するだけです。ノートの一覧かノートの"
        "フレームから操作してください。",
    },
    "compare.summaries": {
        "en": "All I can do is show each note's summary, one after the other; comparing them is "
        "up to you:",
        "ja": "私にできるのは、それぞれのノートの要約を順に示すことだけです。比較はご自身で"
        "お願いします：",
    },
    # Edit proposals
    "quoted": {"en": "“{text}”", "ja": "「{text}」"},
    "proposed.todo_after": {
        "en": "I've proposed adding the task {task} to {path} after the last task ({after}). "
        + _REVIEW["en"],
        "ja": "「{path}」の最後のタスク{after}の後にタスク{task}を追加する変更を提案しました。"
        + _REVIEW["ja"],
    },
    "proposed.todo_end": {
        "en": "I've proposed adding the task {task} to {path} at the end. " + _REVIEW["en"],
        "ja": "「{path}」の末尾にタスク{task}を追加する変更を提案しました。" + _REVIEW["ja"],
    },
    "proposed.done": {
        "en": "I've proposed marking {task} in {path} as done. " + _REVIEW["en"],
        "ja": "「{path}」のタスク{task}を完了にする変更を提案しました。" + _REVIEW["ja"],
    },
    "proposed.undone": {
        "en": "I've proposed marking {task} in {path} as not done. " + _REVIEW["en"],
        "ja": "「{path}」のタスク{task}を未完了にする変更を提案しました。" + _REVIEW["ja"],
    },
    "proposed.line": {
        "en": "I've proposed appending a line to the end of {path}. " + _REVIEW["en"],
        "ja": "「{path}」の末尾に行を追記する変更を提案しました。" + _REVIEW["ja"],
    },
    "proposed.paragraph": {
        "en": "I've proposed appending a paragraph to the end of {path}. " + _REVIEW["en"],
        "ja": "「{path}」の末尾に段落を追記する変更を提案しました。" + _REVIEW["ja"],
    },
    "proposed.heading": {
        "en": "I've proposed adding the heading {line} at the end of {path}. " + _REVIEW["en"],
        "ja": "「{path}」の末尾に見出し{line}を追加する変更を提案しました。" + _REVIEW["ja"],
    },
    "mark.ambiguous": {
        "en": "More than one task in {path} matches {query}. Which one do you mean? Tell me a "
        "little more of its text:",
        "ja": "「{path}」には{query}に当てはまるタスクが {count} 件あります。どれのことですか？"
        "もう少し詳しく指定してください：",
    },
    "mark.already_done": {
        "en": "The task {task} in {path} is already done.",
        "ja": "タスク{task}はすでに完了になっています。",
    },
    "mark.already_open": {
        "en": "The task {task} in {path} is already open.",
        "ja": "タスク{task}はすでに未完了になっています。",
    },
    "mark.none": {
        "en": "I couldn't find a task matching {query} in {path}.",
        "ja": "「{path}」に{query}に当てはまるタスクが見つかりませんでした。",
    },
    "edit.too_large": {
        "en": "I couldn't prepare that change: {text}",
        "ja": "変更後のノートが大きすぎる（1 MiB 超）ため、提案できませんでした。",
    },
    "edit.refused": {
        "en": "I couldn't prepare that change: {text}",
        "ja": "ノートの内容が読み取った時点から変わったため、変更を提案できませんでした。"
        "もう一度お試しください。",
    },
    # --- The configured language model's failures (llm.py folds these in) -----------
    "model.timeout": {
        "en": "Sorry, the language model did not answer in time, so I could not reply. Your "
        "message is saved; please try again.",
        "ja": "申し訳ありません。言語モデルが時間内に応答しなかったため、"
        "返信できませんでした。メッセージは保存されています。"
        "もう一度お試しください。",
    },
    "model.unreachable": {
        "en": "Sorry, I could not reach the language model service. Your message is saved; "
        "please try again later.",
        "ja": "申し訳ありません。言語モデルのサービスに接続できませんでした。"
        "メッセージは保存されています。しばらくしてからお試しください。",
    },
    "model.status": {
        "en": "Sorry, the language model service returned an error (HTTP {status}). Your "
        "message is saved; please try again.",
        "ja": "申し訳ありません。"
        "言語モデルのサービスがエラー（HTTP {status}）を返しました。"
        "メッセージは保存されています。もう一度お試しください。",
    },
    "model.malformed": {
        "en": "Sorry, the language model sent a reply I could not understand. Your message "
        "is saved; please try again.",
        "ja": "申し訳ありません。言語モデルの応答を解釈できませんでした。"
        "メッセージは保存されています。もう一度お試しください。",
    },
    "model.loop": {
        "en": "Sorry, the language model kept calling tools without answering, so I stopped. "
        "Your message is saved; please try again.",
        "ja": "申し訳ありません。"
        "言語モデルが回答せずにツールを呼び続けたため中断しました。"
        "メッセージは保存されています。もう一度お試しください。",
    },
    # --- The inline command (inline.py folds these in) ------------------------------
    "inline.none": {
        "en": "This needs a language model: the offline assistant can only make a bullet "
        "list, a numbered list or a todo list, sort lines, remove duplicate lines, "
        "change to uppercase, lowercase or title case, or join lines. No model is "
        "configured.",
        "ja": "この依頼には言語モデルが必要です。オフラインのアシスタントにできるのは、"
        "箇条書き、番号付きリスト、タスクリスト、行の並べ替え、重複行の削除、"
        "大文字・小文字・タイトルケースへの変換、行の結合だけです。"
        "言語モデルは設定されていません。",
    },
    "inline.many": {
        "en": "This asks for more than one change; the offline assistant does one at a time "
        "(a language model would be needed to do them together).",
        "ja": "複数の変更が含まれています。"
        "オフラインのアシスタントは一度に一つずつしか行えません（まとめて行うには言語モデルが必要です）。",
    },
    "inline.empty": {
        "en": "There is no text to change: select some text, or put the cursor on a line "
        "that has text.",
        "ja": "変更するテキストがありません。テキストを選択するか、"
        "文字のある行にカーソルを置いてください。",
    },
    "inline.model": {
        "en": "The language model could not answer ({why}); nothing was changed. Please try again.",
        "ja": "言語モデルが応答できませんでした（{why}）。何も変更していません。"
        "もう一度お試しください。",
    },
    "inline.why_timeout": {
        "en": "timeout",
        "ja": "タイムアウト",
    },
    "inline.why_unreachable": {
        "en": "unreachable",
        "ja": "接続できません",
    },
    "inline.why_unreadable": {
        "en": "unreadable reply",
        "ja": "応答を解釈できません",
    },
    # --- A streamed turn the user stopped (turns.py) -------------------------------------
    "turn.stopped": {
        "en": "(Stopped before the answer was complete.)",
        "ja": "（回答の途中で停止しました。）",
    },
}


def say(key: str, lang: Lang, /, **fields: object) -> str:
    """The message `key` in `lang`, with its fields filled in."""
    return MESSAGES[key][lang].format(**fields)
