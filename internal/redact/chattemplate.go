package redact

import (
	"strings"
	"unicode/utf8"
)

// Chat templates — the tokens a model's prompt is rendered with before it
// is tokenised (ChatML's <|im_start|>user … <|im_end|>, Llama 3's
// <|start_header_id|>user<|end_header_id|> … <|eot_id|>, Llama 2's and
// Mistral's [INST] … [/INST], Gemma's <start_of_turn>user … <end_of_turn>,
// Zephyr's and Phi's <|user|> … </s>) — mark every turn of a prompt
// whatever the log around them: the text after a turn's opening token is
// content up to the token that closes it, the next turn's, or the next log
// record.

// chatOpeners open a turn; a role word may follow up to the line's end.
var chatOpeners = []string{
	"<|im_start|>", "<|start_header_id|>", "<|header_start|>", "<|start|>", "[INST]", "<start_of_turn>", "<|user|>", "<|system|>",
	"<|assistant|>", "<｜User｜>", "<｜Assistant｜>", "<|User|>", "<|Assistant|>",
}

// chatClosers close a turn (an opener closes it too).
var chatClosers = []string{
	"<|im_end|>", "<|eot_id|>", "<|eot|>", "<|end|>", "<|return|>", "<|call|>", "[/INST]", "<end_of_turn>", "</s>", "<|end|>", "<｜end▁of▁sentence｜>",
}

// headerEnd finds the token that ends a turn's header (Llama 3's
// <|end_header_id|>, Llama 4's <|header_end|>, the harmony format's
// <|message|>) in h, and its length.
func headerEnd(h string) (int, int) {
	for _, t := range [...]string{"<|end_header_id|>", "<|header_end|>", "<|message|>"} {
		if k := strings.Index(h, t); k >= 0 {
			return k, len(t)
		}
	}
	return -1, 0
}

// chatToken returns the length of the opener (open) or closer at s[i], or 0.
func chatToken(s string, i int) (n int, open bool) {
	if c := s[i]; c != '<' && c != '[' {
		return 0, false
	}
	for _, t := range chatOpeners {
		if strings.HasPrefix(s[i:], t) {
			return len(t), true
		}
	}
	for _, t := range chatClosers {
		if strings.HasPrefix(s[i:], t) {
			return len(t), false
		}
	}
	if s[i] == '[' {
		return bracketTurnTag(s, i)
	}
	return 0, false
}

// turnTagWords name a turn or its part in a bracketed tag of a template
// (Mistral's [SYSTEM_PROMPT] … [/SYSTEM_PROMPT], [TOOL_RESULTS] …
// [/TOOL_RESULTS]).
var turnTagWords = []string{"SYSTEM", "PROMPT", "USER", "ASSISTANT", "TOOL", "RESULTS", "INSTRUCTIONS", "CONTEXT", "QUERY", "QUESTION", "MESSAGE", "INPUT", "DOCUMENT", "DOCUMENTS"}

// bracketTurnTag returns the length of a bracketed tag at s[i] that opens
// or closes a turn: upper-case words joined by '_', one of them a
// turnTagWords, "[NAME]" opening when "[/NAME]" closes it further on, so
// a log's "[USER] signed in" stays.
func bracketTurnTag(s string, i int) (n int, open bool) {
	j := i + 1
	closing := j < len(s) && s[j] == '/'
	if closing {
		j++
	}
	ns := j
	for j < len(s) && j-ns <= 24 && (isUpper(s[j]) || s[j] == '_') {
		j++
	}
	if j == ns || j >= len(s) || s[j] != ']' {
		return 0, false
	}
	name := s[ns:j]
	turn := false
	for _, w := range strings.Split(name, "_") {
		turn = turn || containsWord(turnTagWords, w)
	}
	if !turn {
		return 0, false
	}
	if closing {
		return j + 1 - i, false
	}
	if !strings.Contains(s[j+1:min(len(s), j+1+maxDecodedBytes)], "[/"+name+"]") {
		return 0, false
	}
	return j + 1 - i, true
}

// findChatTurn returns the text of the first turn after from. It visits
// each '<' and '[' once, so a text of many turns is linear.
func findChatTurn(s string, from int) []int {
	for i := from; i < len(s); i++ {
		k := strings.IndexAny(s[i:], "<[")
		if k < 0 {
			return nil
		}
		o := i + k
		i = o
		ol, open := chatToken(s, o)
		if ol == 0 || !open {
			continue
		}
		vs := o + ol
		// A role word and its header's end (<|end_header_id|>), then the
		// line break: what follows is the turn's text.
		if k, n := headerEnd(s[vs:min(len(s), vs+48)]); k >= 0 {
			vs += k + n
		} else if strings.HasPrefix(s[o:], "<|start|>") || strings.HasPrefix(s[o:], "<|header_start|>") {
			continue // a header with no end: the turn left for the model to write
		} else if s[o] == '<' && !strings.HasPrefix(s[o:], "<|user|>") && !strings.HasPrefix(s[o:], "<|system|>") && !strings.HasPrefix(s[o:], "<|assistant|>") {
			for vs < len(s) && isAlnum(s[vs]) {
				vs++ // the role word after <|im_start|> or <start_of_turn>
			}
		}
		escaped := false // the template written inside a quoted string, its line breaks as \n
		for vs < len(s) && (s[vs] == ' ' || s[vs] == '\n' || s[vs] == '\r' || s[vs] == '\\' && vs+1 < len(s) && s[vs+1] == 'n') {
			if s[vs] == '\\' {
				vs++
				escaped = true
			}
			vs++
		}
		if vs < len(s) && (s[vs] == '"' || s[vs] == '\'') && (vs+1 == len(s) || strings.IndexByte(",;)}] \t\r\n", s[vs+1]) >= 0) {
			i = vs
			continue // an empty turn left for the model, then the string that held the template closes
		}
		if vs < len(s) && vs > 0 && s[vs-1] == '\n' && logRecordStart(s, vs) {
			i = vs - 1
			continue // an empty turn (the assistant's, left for the model), then the log
		}
		// The turn ends at the next token, or without one at the next log
		// record, within maxDecodedBytes.
		ve := min(len(s), vs+maxDecodedBytes)
		for k := vs; k < ve; k++ {
			switch s[k] {
			case '<', '[':
				if n, _ := chatToken(s, k); n > 0 {
					ve = k
				}
			case '\n':
				if k+1 < ve && logRecordStart(s, k+1) {
					ve = k
				}
			}
		}
		if escaped {
			// Inside a string (a Python repr, a JSON value): the turn ends
			// with its line, or at the string's closing quote.
			ve = min(ve, lineEnd(s, vs))
			ls := lineStartOf(s, o)
			if q := strings.LastIndexAny(s[ls:o], "'\""); q >= 0 {
				if k := closingQuote(s, ls+q); k >= vs && k < ve {
					ve = k
				}
			}
		}
		for ve > vs && (s[ve-1] == ' ' || s[ve-1] == '\n' || s[ve-1] == '\r') {
			ve--
		}
		if ve-vs < 2 || startsWithMarker(s, vs) {
			i = max(i, ve-1)
			continue
		}
		return []int{vs, ve, -1, -1, vs, ve}
	}
	return nil
}

// boxTitleWords, in the title of a panel drawn with box characters (rich's
// Panel, as smolagents, CrewAI and Agno print a run's task), say its body
// is the task or a message given to the model.
var boxTitleWords = []string{"run", "task", "prompt", "input", "message", "question", "instruction", "query", "user"}

// findBoxedContent finds the body of a panel drawn with box characters
// whose title names a task or a message: the lines between its top border
// (╭─ New run ─╮) and its bottom border (╰─…─╯), each between its '│'.
func findBoxedContent(s string, from int) []int {
	if loc := findAgentBoxLine(s, from); loc != nil {
		return loc
	}
	for i := from; i < len(s); {
		top, te, title := nextBoxTop(s, i)
		if top < 0 {
			return nil
		}
		i = top + len("╭")
		title = strings.ToLower(title)
		named := false
		for _, w := range boxTitleWords {
			if j := strings.Index(title, w); j >= 0 && (j == 0 || !isAlnum(title[j-1])) && (j+len(w) == len(title) || !isAlnum(title[j+len(w)])) {
				named = true
				break
			}
		}
		if !named || te >= len(s) {
			continue
		}
		bs := te + 1
		be := strings.Index(s[bs:min(len(s), bs+maxDecodedBytes)], "╰")
		if be < 0 {
			continue
		}
		be += bs
		// The body's lines, from the first '│' to the last one's end.
		vs := strings.Index(s[bs:be], "│")
		if vs < 0 {
			continue
		}
		vs += bs + len("│")
		ve := strings.LastIndex(s[vs:be], "│")
		if ve < 0 {
			continue
		}
		ve += vs
		if strings.TrimSpace(strings.ReplaceAll(s[vs:ve], "│", "")) == "" || startsWithMarker(s, skipBlanks(s, vs)) {
			i = be
			continue
		}
		return []int{vs, ve, -1, -1, vs, ve}
	}
	return nil
}

// nextBoxTop finds the next top border of a box (╭) at or after i: where
// it starts, where its line ends and the title between its border
// characters; top is -1 when no box is left.
func nextBoxTop(s string, i int) (top, te int, title string) {
	k := strings.Index(s[i:], "╭")
	if k < 0 {
		return -1, -1, ""
	}
	top = i + k
	te = lineEnd(s, top)
	return top, te, strings.Trim(s[top:te], "╭╮─━ \t")
}

// findAgentBoxLine finds, at or after from, the text of a line of an
// agent's console box: a box whose title names its speaker in angle
// brackets (TaskWeaver's ╭───< Planner >), drawn with a left border only
// (│, ├─►, ├──●). Its lines are the speaker's plan, thoughts and the
// messages it sends: each line's text after its border and its bracketed
// label ([init_plan], [thought]) is content; the labels and the bottom
// border's hand-off (╰──● sending message to …) stay.
func findAgentBoxLine(s string, from int) []int {
	for i := max(0, from-maxDecodedBytes); i < len(s); {
		top, te, title := nextBoxTop(s, i)
		if top < 0 {
			return nil
		}
		i = top + len("╭")
		if len(title) < 3 || title[0] != '<' || title[len(title)-1] != '>' || te >= len(s) {
			continue
		}
		be := strings.Index(s[te:min(len(s), te+maxDecodedBytes)], "╰")
		if be < 0 {
			continue
		}
		be += te
		for ls := te + 1; ls < be; {
			le := min(lineEnd(s, ls), be)
			if vs, ve := boxLineText(s, ls, le); ve > vs && vs >= from {
				return []int{vs, ve, -1, -1, vs, ve}
			}
			ls = le + 1
		}
		i = max(i, be)
	}
	return nil
}

// boxLineText returns the text of the line s[ls:le] of an agent's box
// after its left border and its bracketed label, or an empty span.
func boxLineText(s string, ls, le int) (int, int) {
	vs := ls
	for vs < le && (s[vs] == ' ' || s[vs] == '\t' || strings.HasPrefix(s[vs:], "│") || strings.HasPrefix(s[vs:], "├") ||
		strings.HasPrefix(s[vs:], "─") || strings.HasPrefix(s[vs:], "►") || strings.HasPrefix(s[vs:], "●")) {
		_, n := utf8.DecodeRuneInString(s[vs:])
		vs += n
	}
	if vs == ls {
		return ls, ls // no border: not the box's line
	}
	if vs < le && s[vs] == '[' {
		if c := strings.IndexByte(s[vs:le], ']'); c > 0 {
			vs = skipBlanks(s, vs+c+1)
		}
	}
	ve := le
	for ve > vs && (s[ve-1] == ' ' || s[ve-1] == '\r') {
		ve--
	}
	if ve-vs < 2 || startsWithMarker(s, vs) {
		return vs, vs
	}
	return vs, ve
}

// findRoleTag finds an element of a prompt template whose opening tag
// carries a role attribute — Semantic Kernel's and Prompty's
// <message role="user">…</message>, a <turn role='system'> — and returns
// its text up to the element's closing tag (or the next opening tag of a
// turn, or the line's end when it never closes on the line): the turn is
// content whatever the role.
func findRoleTag(s string, from int) []int {
	for r := range marks(s, from, "role=") {
		i := r + len("role=")
		if i >= len(s) || s[i] != '"' && s[i] != '\'' || r == 0 || s[r-1] != ' ' {
			continue
		}
		// The tag's name: '<' and a word before the attributes.
		lt := strings.LastIndexByte(s[max(0, r-128):r], '<')
		if lt < 0 {
			continue
		}
		lt += max(0, r-128)
		ne := lt + 1
		for ne < r && (isAlnum(s[ne]) || s[ne] == '_' || s[ne] == '-' || s[ne] == ':') {
			ne++
		}
		if ne == lt+1 || s[ne] != ' ' || strings.ContainsAny(s[ne:r], "<>\n") {
			continue
		}
		gt := strings.IndexByte(s[i:], '>')
		if gt < 0 || gt > 256 || s[i+gt-1] == '/' {
			continue
		}
		vs := i + gt + 1
		closer := "</" + s[lt+1:ne] + ">"
		ve := strings.Index(s[vs:min(len(s), vs+maxDecodedBytes)], closer)
		if ve < 0 {
			ve = lineEnd(s, vs) - vs
		}
		ve += vs
		if ve <= vs || startsWithMarker(s, vs) && isTextMarker(strings.TrimSpace(s[vs:ve])) {
			continue
		}
		return []int{lt, ve, -1, -1, vs, ve}
	}
	return nil
}
