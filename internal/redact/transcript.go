package redact

import "strings"

// Agent frameworks print a conversation as a transcript: a header line
// names a turn or a field, and the text under it is what was said — DSPy's
// inspect_history ("System message:", "User message:", "[[ ## ticket ##
// ]]"), AutoGen's console ("---------- TextMessage (user) ----------",
// "Planner (to chat_manager):"), LangGraph's pretty_print ("==== Human
// Message ===="), CrewAI's verbose output ("## Task: …", "## Final
// Answer:"), a prompt file's role blocks ("user:" over indented text).
// The header stays; the text under it is content, from the header (or the
// text after a heading's label) up to the next header, a rule line, a line
// that starts a log record or an exception, or, under a role key, the end
// of its indented block.

// turnHeader is what a line says about the lines after it.
type turnHeader int

const (
	noHeader     turnHeader = iota
	blockHeader             // the turn's text is on the lines after it
	inlineHeader            // the turn's text starts after the label on the line
	roleKey                 // a role key: the turn's text is the indented block after it
	speakerLine             // a header whose value names a speaker, not content
	sentenceHead            // a Markdown heading that is a sentence: a turn written as a heading
)

// HeadingTurnWords are the words that, alone or last in a Markdown heading
// of one or two words without a colon ("## Prompt", "### Response",
// "## User message"), make it a turn's header.
var HeadingTurnWords = map[string]bool{
	"prompt": true, "response": true, "completion": true, "answer": true, "question": true,
	"reply": true, "instructions": true, "message": true, "messages": true,
	"system": true, "user": true, "assistant": true, "human": true, "ai": true,
}

// RoleWords are the roles of a conversation's turns.
var RoleWords = map[string]bool{
	"system": true, "user": true, "assistant": true, "human": true, "ai": true,
	"developer": true, "tool": true, "function": true, "model": true,
}

// ReportWords name a run's own report in a framed heading ("----------
// Summary ----------"): its lines are the system's, not a turn's.
var ReportWords = map[string]bool{
	"summary": true, "usage": true, "stats": true, "statistics": true, "error": true,
	"errors": true, "warning": true, "warnings": true, "traceback": true, "debug": true,
}

// SpeakerLabels are heading labels whose value names the speaker (CrewAI's
// "# Agent: Support Lead"), which stays.
var SpeakerLabels = map[string]bool{
	"agent": true, "role": true, "speaker": true, "sender": true, "name": true,
	"model": true, "using tool": true, "tool": true,
}

// stripANSI returns the line without terminal colour codes (ESC [ … m).
func stripANSI(line string) string {
	if strings.IndexByte(line, 0x1b) < 0 {
		return line
	}
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
			j := i + 2
			for j < len(line) && (isDigit(line[j]) || line[j] == ';') {
				j++
			}
			if j < len(line) && line[j] == 'm' {
				i = j
				continue
			}
		}
		b.WriteByte(line[i])
	}
	return b.String()
}

// classifyTurnLine says whether a line (colour codes removed) is a
// transcript's header, and for an inline header where its label ends.
func classifyTurnLine(line string) (turnHeader, int) {
	t := strings.TrimRight(line, " \t\r")
	if t == "" {
		return noHeader, 0
	}
	switch {
	case strings.HasPrefix(t, "[[ ## ") && strings.HasSuffix(t, " ## ]]"):
		return blockHeader, 0 // DSPy's field
	case t[0] == '-' || t[0] == '=':
		// A framed heading: a rule, one to four words, a rule (eight
		// characters or more each: a PEM armour line has five).
		c := t[0]
		a := 0
		for a < len(t) && t[a] == c {
			a++
		}
		b := len(t)
		for b > a && t[b-1] == c {
			b--
		}
		if a < 8 || len(t)-b < 8 || b <= a {
			return noHeader, 0
		}
		words := strings.Fields(t[a:b])
		if len(words) == 0 || len(words) > 4 {
			return noHeader, 0
		}
		for _, w := range words {
			if ReportWords[strings.ToLower(w)] {
				return noHeader, 0
			}
		}
		return blockHeader, 0
	case t[0] == '#':
		// A Markdown heading written as a label: "## Task: …".
		h := 0
		for h < len(t) && t[h] == '#' {
			h++
		}
		if h > 6 || h >= len(t) || t[h] != ' ' {
			return noHeader, 0
		}
		c := strings.IndexByte(t, ':')
		if c < 0 {
			return markdownTurn(t, h)
		}
		if c != len(t)-1 && t[c+1] != ' ' {
			return noHeader, 0
		}
		label := strings.TrimSpace(t[h:c])
		words := strings.Fields(label)
		if len(words) == 0 || len(words) > 4 || !isUpper(words[0][0]) {
			// A comment ("# public key: …") is no heading.
			return noHeader, 0
		}
		for _, w := range words {
			if !isPlainWord(w) {
				return noHeader, 0
			}
		}
		if SpeakerLabels[strings.ToLower(label)] {
			return speakerLine, 0
		}
		if c == len(t)-1 {
			return blockHeader, 0
		}
		return inlineHeader, c + 1
	}
	if c := inlineRole(t); c > 0 {
		return inlineHeader, c + 1
	}
	if t[len(t)-1] != ':' {
		return noHeader, 0
	}
	body := t[:len(t)-1]
	// "Planner (to chat_manager):" — AutoGen's speaker line.
	if p := strings.Index(body, " (to "); p > 0 && strings.HasSuffix(body, ")") && strings.IndexAny(body[:p], " \t") < 0 && strings.IndexAny(body[p+5:len(body)-1], " \t") < 0 {
		return blockHeader, 0
	}
	// "AI Assistant (Booking Bot):" — CAMEL's role-play speaker: a role's
	// words, then who plays it in parentheses.
	if p := strings.Index(body, " ("); p > 0 && strings.HasSuffix(body, ")") && !strings.Contains(body[p+2:], "(") {
		role := strings.Fields(body[:p])
		if len(role) <= 3 && len(role) > 0 && RoleWords[strings.ToLower(role[len(role)-1])] {
			return blockHeader, 0
		}
	}
	words := strings.Fields(body)
	switch {
	case len(words) == 2 && RoleWords[strings.ToLower(words[0])] && (strings.EqualFold(words[1], "message") || strings.EqualFold(words[1], "prompt")):
		return blockHeader, 0 // DSPy's "User message:"
	case len(words) == 1 && body == words[0] && RoleWords[body]:
		return roleKey, 0 // a prompt file's "user:" at the line's start
	}
	return noHeader, 0
}

// markdownTurn classifies a Markdown heading without a colon (its '#'s
// end at t[h]): one or two words, the last naming a turn or a part of it
// ("## Prompt", "## Response"), head the lines under it; a heading of two
// '#'s or more that reads as a sentence — a lower-case first word and four
// words or more — is a turn written as a heading (a chat log's
// "#### refactor the exporter so …"), its text the rest of the line.
func markdownTurn(t string, h int) (turnHeader, int) {
	words := strings.Fields(t[h:])
	switch {
	case len(words) >= 1 && len(words) <= 2 && isUpper(words[0][0]) && HeadingTurnWords[strings.ToLower(words[len(words)-1])]:
		for _, w := range words {
			if !isPlainWord(w) {
				return noHeader, 0
			}
		}
		return blockHeader, 0
	case h >= 2 && len(words) >= 4 && isLower(words[0][0]) && isPlainWord(words[0]):
		return sentenceHead, h + 1
	}
	return noHeader, 0
}

// inlineRoles are the roles whose label starts a turn written on its own
// line with its text after it ("user: Invoice 2026-0913 from …").
var inlineRoles = map[string]bool{
	"user": true, "system": true, "assistant": true, "human": true, "ai": true, "developer": true,
	"bot": true, "customer": true,
}

// supportSpeakers are the speakers of a support call's or chat's
// transcript. Their labels are common words of logs too ("Client: GPT4o
// (…) - 2381ms", "agent: { name: … }"), so a line they start is a turn only
// in a dialogue: another line starts with a different speaker's label.
var supportSpeakers = map[string]bool{
	"customer": true, "agent": true, "caller": true, "client": true, "visitor": true, "rep": true,
	"representative": true, "advisor": true, "adviser": true, "operator": true, "patient": true,
	"csr": true, "member": true, "kunde": true, "cliente": true, "klant": true, "agente": true,
	"atendente": true, "bot": true,
}

// speakerLabel returns the lower-case label of a speaker that starts the
// line t (after its indentation) and is followed by ": ", or "".
func speakerLabel(t string) string {
	t = strings.TrimLeft(t, " \t")
	c := strings.Index(t, ": ")
	if c < 2 || c > 14 {
		return ""
	}
	if l := strings.ToLower(t[:c]); supportSpeakers[l] {
		return l
	}
	return ""
}

// inDialogue reports whether a line of s other than the one at ls starts
// with a speaker's label other than label.
func inDialogue(s string, ls int, label string) bool {
	for i, n := 0, 0; i < len(s) && n < 400; n++ {
		e := lineEnd(s, i)
		if i != ls {
			if l := speakerLabel(s[i:e]); l != "" && l != label {
				return true
			}
		}
		i = e + 1
	}
	return false
}

// inlineRole returns the index of the ':' of a role's label that starts a
// line (after its indentation) and is followed by prose — three words at
// least, so that "user: alice" stays a login — or -1.
func inlineRole(t string) int {
	ind := len(t) - len(strings.TrimLeft(t, " \t"))
	c := strings.Index(t[ind:], ": ")
	if c < 2 || c > 48 {
		return -1
	}
	key := strings.ToLower(t[ind : ind+c])
	if p := strings.Index(key, " ("); p > 0 && key[len(key)-1] == ')' && !strings.ContainsAny(key[p+2:len(key)-1], "()") {
		key = key[:p] // "User (Zaesar): …" — a role, then who plays it
	}
	if len(key) > 14 || !inlineRoles[key] && !supportSpeakers[key] {
		return -1
	}
	if rest := strings.TrimSpace(t[ind+c+2:]); strings.Count(rest, " ") < 2 || strings.HasPrefix(rest, markerPrefix) || strings.HasPrefix(rest, "[text ") {
		return -1
	}
	return ind + c
}

// turnTextEnds reports whether the line (colour codes removed) ends a
// turn's text: another header, a rule, a log record, an exception.
func turnTextEnds(line string) bool {
	t := strings.TrimRight(line, " \t\r")
	if t == "" {
		return false
	}
	if h, _ := classifyTurnLine(t); h != noHeader {
		return true
	}
	if lt := strings.TrimLeft(t, " \t"); strings.HasPrefix(lt, "---") || strings.HasPrefix(lt, "===") {
		return true // a rule or a section's marker ("---LLM REPLY---")
	}
	if len(t) >= 5 && strings.Trim(t, "-=_*") == "" || framed(t) {
		return true // a rule, or a heading framed by rules ("---------- Summary ----------")
	}
	if t[0] == '#' {
		// A heading or a comment written as a label ("# created: …").
		if c := strings.IndexByte(t, ':'); c > 0 && isPlainWord(strings.ReplaceAll(strings.TrimLeft(t[:c], "# "), " ", "")) {
			return true
		}
	}
	if len(t) >= 10 && isDigit(t[0]) && isDigit(t[1]) && isDigit(t[2]) && isDigit(t[3]) && t[4] == '-' ||
		t[0] == '[' && len(t) >= 11 && isDigit(t[1]) && isDigit(t[2]) && isDigit(t[3]) && isDigit(t[4]) && t[5] == '-' {
		return true // a timestamp
	}
	if (isLetter(t[0]) || t[0] == '[') && logRecordStart(t, 0) {
		return true
	}
	// An exception: a dotted name ending in Error or Exception, then ':'.
	k := 0
	for k < len(t) && (isWord(t[k]) || t[k] == '.') {
		k++
	}
	name := t[:k]
	return k < len(t) && t[k] == ':' && (strings.HasSuffix(name, "Error") || strings.HasSuffix(name, "Exception"))
}

// framed reports whether a line is words between two rules of eight
// characters or more.
func framed(t string) bool {
	if len(t) < 17 || t[0] != '-' && t[0] != '=' {
		return false
	}
	c := t[0]
	a := strings.IndexFunc(t, func(r rune) bool { return byte(r) != c })
	b := strings.LastIndexFunc(t, func(r rune) bool { return byte(r) != c }) + 1
	return a >= 8 && len(t)-b >= 8 && strings.TrimSpace(t[a:b]) != ""
}

// findTurnText finds the text under a transcript's header (see above).
func findTurnText(s string, from int) []int {
	for ls := from; ls < len(s); {
		le := lineEnd(s, ls)
		next := le + 1
		if le < len(s) && s[le] == '\r' && next < len(s) && s[next] == '\n' {
			next++
		}
		if ls > 0 && s[ls-1] != '\n' && s[ls-1] != '\r' && ls != from {
			ls = next
			continue
		}
		line := stripANSI(s[ls:le])
		h, label := classifyTurnLine(line)
		escaped := false
		if h == noHeader {
			// A prompt printed with its newlines escaped, in a JSON string
			// or a log line ("…\nUser: …\nAssistant:"), starts a turn
			// after an escape; its text ends at the next one.
			if ts, tl, th, tlabel := escapedTurn(s, ls, le); th == inlineHeader {
				ls, le, line, h, label, escaped = ts, tl, stripANSI(s[ts:tl]), th, tlabel, true
			}
		}
		if h == noHeader || h == speakerLine {
			ls = next
			continue
		}
		var vs int
		switch h {
		case inlineHeader:
			// The label ends at the same place with or without colour
			// codes when the line has none before it.
			raw := s[ls:le]
			c := strings.IndexByte(raw, ':')
			if c < 0 || stripANSI(raw[:c+1]) != line[:label] {
				ls = next
				continue
			}
			if l := speakerLabel(raw); l != "" && !inlineRoles[l] && !inDialogue(s, ls, l) {
				ls = next
				continue // a support speaker's label alone: a log's word
			}
			vs = skipBlanks(s, ls+c+1)
		case sentenceHead:
			vs = ls + label
		default:
			vs = next
			for vs < len(s) {
				e := lineEnd(s, vs)
				if strings.TrimSpace(s[vs:e]) != "" {
					break
				}
				vs = e + 1
			}
		}
		if vs >= len(s) {
			return nil
		}
		if h != inlineHeader && h != sentenceHead && turnTextEnds(stripANSI(s[vs:lineEnd(s, vs)])) {
			ls = next
			continue // no text under it: the next header's
		}
		// Under a role key the turn is its indented block, or — as prompt
		// files (Prompty, chat markdown) write it — unindented prose up to a
		// blank line; an unindented key, list item or nothing is YAML's.
		bare := h == roleKey && s[vs] != ' ' && s[vs] != '\t'
		if bare && !proseLine(s[vs:lineEnd(s, vs)]) {
			ls = next
			continue
		}
		// The text runs line by line to what ends it.
		ve := lineEnd(s, vs)
		if escaped {
			ve = min(ve, le)
		}
		for k := ve + 1; !escaped && k < len(s) && k-vs < maxDecodedBytes; {
			e := lineEnd(s, k)
			l := stripANSI(s[k:e])
			if bare && strings.TrimSpace(l) == "" {
				break
			}
			if h == roleKey && !bare && strings.TrimSpace(l) != "" && l[0] != ' ' && l[0] != '\t' {
				break
			}
			if turnTextEnds(l) {
				break
			}
			if h == sentenceHead && strings.HasPrefix(l, ">") {
				break // the tool's own output, quoted, ends the turn and its reply
			}
			if strings.TrimSpace(l) != "" {
				ve = e
			}
			k = e + 1
		}
		ve = trimLineEnd(s, vs, ve)
		if ve <= vs || startsWithMarker(s, vs) && isTextMarker(strings.TrimSpace(s[vs:ve])) {
			ls = next
			continue
		}
		if h == roleKey {
			// A mapping under the key ("user:\n  name: bob") is
			// configuration, not a turn.
			first := strings.TrimSpace(s[vs:lineEnd(s, vs)])
			if c := strings.Index(first, ": "); c > 0 && strings.IndexByte(first[:c], ' ') < 0 || strings.HasSuffix(first, ":") || strings.HasPrefix(first, "- ") {
				ls = next
				continue
			}
			vs = skipBlanks(s, vs)
		}
		return []int{ls, ve, -1, -1, vs, ve}
	}
	return nil
}

// escapedTurn finds, in the line s[ls:le], an escaped newline ("\\n")
// followed by a role's label and prose — a turn of a prompt printed with
// its newlines escaped — and returns where the turn starts, where its
// text ends (the next escaped newline or the line's end) and its header.
func escapedTurn(s string, ls, le int) (int, int, turnHeader, int) {
	for i, n := ls, 0; i < le && n < 64; n++ {
		e := strings.Index(s[i:le], "\\n")
		if e < 0 {
			break
		}
		ts := i + e + 2
		for ts+1 < le && s[ts] == '\\' && s[ts+1] == 'n' {
			ts += 2
		}
		i = ts
		if ts >= le || !isLetter(s[ts]) {
			continue
		}
		tl := le
		if f := strings.Index(s[ts:le], "\\n"); f >= 0 {
			tl = ts + f
		}
		if h, label := classifyTurnLine(s[ts:tl]); h == inlineHeader {
			return ts, tl, h, label
		}
	}
	return ls, le, noHeader, 0
}

// proseLine reports whether an unindented line under a role key is prose
// (three words at least, no "key:" of its own, no list item), not YAML.
func proseLine(l string) bool {
	l = strings.TrimSpace(l)
	if strings.HasPrefix(l, "- ") || strings.HasSuffix(l, ":") || strings.Count(l, " ") < 2 {
		return false
	}
	if c := strings.Index(l, ": "); c > 0 && strings.IndexByte(l[:c], ' ') < 0 {
		return false
	}
	return true
}

// lineContinuation extends the value s[vs:ve] of a content key written at
// the start of an unindented line ("last_prompt: <dataframe>") over the
// lines after it that are neither a key of their own ("model: …") nor the
// start of a log record, an exception or a transcript's header — blank
// lines included, as a prompt holds them — and returns the new end. A
// value quoted on its line, or a block under the key, is yamlValue's.
func lineContinuation(s string, ks, vs, ve int) int {
	if ks != lineStartOf(s, ks) || ve >= len(s) || ve != lineEnd(s, vs) {
		return ve
	}
	end := ve
	for k := ve + 1; k < len(s) && k-vs < maxDecodedBytes; {
		e := lineEnd(s, k)
		l := s[k:e]
		if t := strings.TrimSpace(l); t != "" {
			if startsWithKey(l) || turnTextEnds(l) {
				break
			}
			end = e
		}
		k = e + 1
	}
	return trimLineEnd(s, ve, end)
}

// startsWithKey reports whether a line starts with a key and its ':' —
// "model: gpt-4o", "max_tokens:" — at any indentation.
func startsWithKey(l string) bool {
	k := 0
	for k < len(l) && (l[k] == ' ' || l[k] == '\t' || l[k] == '-') {
		k++
	}
	j := k
	for j < len(l) && (isWord(l[j]) || l[j] == '.' || l[j] == '-') {
		j++
	}
	return j > k && isLetter(l[k]) && j < len(l) && l[j] == ':' && (j+1 == len(l) || l[j+1] == ' ' || l[j+1] == '\t' || l[j+1] == '\r')
}

// A prompt built in code names its turns by calls: guidance's
// system('…') + user('…'), LangChain's SystemMessage('…') and
// HumanMessage("…"), LangChain4j's UserMessage.from("…"). A string literal
// that is the first argument of a call named by a role (RoleWords), or by
// a role and "Message", is content, wherever the call is printed (a
// program in an exception, a traceback's code line).

// findRoleCall finds the string literal of a role's call.
func findRoleCall(s string, from int) []int {
	for p := range byteMarks(s, from, '(') {
		q := skipBlanks(s, p+1)
		if q >= len(s) || s[q] != '\'' && s[q] != '"' || startsWithMarker(s, q+1) {
			continue
		}
		ne := p
		if strings.HasSuffix(s[:ne], ".from") || strings.HasSuffix(s[:ne], ".of") {
			ne = strings.LastIndexByte(s[:ne], '.')
		}
		ns := ne
		for ns > 0 && ne-ns < 40 && isWord(s[ns-1]) {
			ns--
		}
		if ns == ne {
			continue
		}
		role := roleCallName(s[ns:ne])
		if !role && !jobCallName(s, ns, ne) {
			continue
		}
		vs, ve := quotedSpan(s, q)
		if ve <= vs || ve >= len(s) || s[ve] != s[q] {
			continue
		}
		if !role {
			// A job's call: the first of its arguments that is free text.
			vs, ve = proseArgument(s, q)
			if ve <= vs {
				continue
			}
		}
		return []int{ns, ve, -1, -1, vs, ve}
	}
	return nil
}

// findRoleArgCall finds the text of a message printed as a call whose
// first argument is its role — Scala's case class `Message(user,…)`, a
// constructor's `ChatMessage("user", "…")`, `Message(Role.USER, "…")`: the
// call's name is a message's or a turn's, and the rest of its arguments, to
// the bracket that closes it, is the turn's text.
func findRoleArgCall(s string, from int) []int {
	for p := range byteMarks(s, from, '(') {
		ns := p
		for ns > from && p-ns < 40 && isWord(s[ns-1]) {
			ns--
		}
		name := strings.ToLower(s[ns:p])
		if !strings.HasSuffix(name, "message") {
			continue
		}
		// The role: bare, quoted, or an enum's member (Role.USER).
		r := skipBlanks(s, p+1)
		re := r
		for re < len(s) && (isWord(s[re]) || s[re] == '.' || s[re] == '"' || s[re] == '\'') {
			re++
		}
		role := strings.Trim(s[r:re], "\"'")
		if d := strings.LastIndexByte(role, '.'); d >= 0 {
			role = role[d+1:]
		}
		if !RoleWords[strings.ToLower(role)] || re >= len(s) || s[re] != ',' {
			continue
		}
		vs := skipBlanks(s, re+1)
		if vs >= len(s) || startsWithMarker(s, vs) {
			continue
		}
		var ve int
		if q := s[vs]; q == '"' || q == '\'' {
			if e := closingQuote(s, vs); e > vs+1 {
				vs, ve = vs+1, e
			}
		} else {
			ve = closeOfCall(s, vs)
		}
		if ve <= vs || startsWithMarker(s, vs) || strings.Count(s[vs:ve], " ") < 2 {
			continue
		}
		return []int{ns, ve, -1, -1, vs, ve}
	}
	return nil
}

// closeOfCall returns where the bare text from v ends: the ')' that closes
// the call it stands in, at its depth, or the line's end.
func closeOfCall(s string, v int) int {
	depth := 0
	for k := v; k < len(s) && k-v < maxDecodedBytes; k++ {
		switch s[k] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return k
			}
			depth--
		case '\n', '\r':
			return k
		}
	}
	return v
}

// roleCallName reports whether a call's name is a role's: "user",
// "system", "SystemMessage", "HumanMessage", "AIMessage".
func roleCallName(name string) bool {
	if RoleWords[name] {
		return true
	}
	base, ok := strings.CutSuffix(name, "Message")
	return ok && base != "" && RoleWords[strings.ToLower(base)]
}

// A job printed as a call — RQ's description "tasks.summarize('…', 3)",
// Dramatiq's "Failed to process message answer_ticket('tkt_9', '…')" — holds
// the job's arguments: a function's name (lower case, snake case, dotted
// by its module) and not an exception's (ValueError('…') is capitalized).
// Its arguments are judged like a job's (jobargs.go): free text goes.

// jobCallName reports whether s[ns:ne] names a function: lower case
// letters, digits and '_', with its module before it ("tasks.summarize").
func jobCallName(s string, ns, ne int) bool {
	if !isLower(s[ns]) {
		return false
	}
	for k := ns; k < ne; k++ {
		if isUpper(s[k]) {
			return false
		}
	}
	return true
}

// proseArgument returns the first string literal among a call's arguments,
// from the quote at q to the call's ')' on its line, that is free text.
func proseArgument(s string, q int) (int, int) {
	le := lineEnd(s, q)
	for k := q; k < le; {
		switch s[k] {
		case ')':
			return 0, 0
		case '\'', '"':
			vs, ve := quotedSpan(s, k)
			if ve > le || ve >= len(s) || s[ve] != s[k] {
				return 0, 0
			}
			if isProse(s[vs:ve]) && !startsWithMarker(s, vs) {
				return vs, ve
			}
			k = ve + 1
		default:
			k++
		}
	}
	return 0, 0
}

// turnSpeakers and turnNouns name a conversation's message in prose:
// "Received user message '…'", "Bot utterance '…'", "customer query "…"".
var (
	turnSpeakers = []string{"user", "human", "customer", "bot", "assistant", "agent", "caller"}
	turnNouns    = []string{"message", "utterance", "input", "query", "question", "reply", "response", "text"}
)

// findTurnQuoted finds the quoted text right after a speaker and a
// message noun ("user message 'my card was charged twice'"): a turn of a
// conversation, content whatever the log line around it.
func findTurnQuoted(s string, from int) []int {
	for i := from; i < len(s); i++ {
		c := lowerASCII(s[i])
		if i > 0 && isAlnum(s[i-1]) {
			continue
		}
		for _, sp := range turnSpeakers {
			if sp[0] != c || !hasPrefixFold(s[i:], sp) {
				continue
			}
			j := i + len(sp)
			if j >= len(s) || s[j] != ' ' {
				continue
			}
			j++
			for _, n := range turnNouns {
				if !hasPrefixFold(s[j:], n) {
					continue
				}
				q := j + len(n)
				if q+1 < len(s) && s[q] == ' ' && (s[q+1] == '\'' || s[q+1] == '"') && !startsWithMarker(s, q+2) {
					if vs, ve := quotedSpan(s, q+1); ve-vs >= 2 {
						return []int{vs, ve, -1, -1, vs, ve}
					}
				}
			}
		}
	}
	return nil
}

// levelPrefix returns the length of a log level word and the blanks after
// it at the start of line ("DEBUG ", "INFO  "), or 0.
func levelPrefix(line string) int {
	for _, l := range [...]string{"DEBUG", "INFO", "WARNING", "WARN", "ERROR", "TRACE"} {
		if strings.HasPrefix(line, l) && len(line) > len(l) && (line[len(l)] == ' ' || line[len(l)] == '\t') {
			return skipBlanks(line, len(l))
		}
	}
	return 0
}

// findPrefixedTurn finds a turn framed by a heading (==== user ====) when
// every line of the log carries a level word first ("DEBUG ==== system
// ====", "DEBUG You triage tickets…", as Agno's debug log writes a run):
// the text is the lines after the heading that carry the same level, up
// to the next heading, rule or record of another level.
func findPrefixedTurn(s string, from int) []int {
	for ls := from; ls < len(s); {
		le := lineEnd(s, ls)
		next := min(len(s), le+1)
		line := s[ls:le]
		p := levelPrefix(line)
		if p == 0 {
			ls = next
			continue
		}
		if h, _ := classifyTurnLine(line[p:]); h != blockHeader {
			ls = next
			continue
		}
		level := line[:p]
		vs, ve := next, next
		for k := next; k < len(s); {
			e := lineEnd(s, k)
			l := s[k:e]
			if !strings.HasPrefix(l, level) || turnTextEnds(l[p:]) {
				break
			}
			if ve == next {
				vs = k + p
			}
			ve = e
			k = min(len(s), e+1)
		}
		if ve > vs && !startsWithMarker(s, vs) {
			return []int{vs, ve, -1, -1, vs, ve}
		}
		ls = next
	}
	return nil
}

// findQuerySource finds the prompt of a query language's program: LMQL's
// decoder clause (argmax, sample, beam, beam_var, best_k, each alone on its
// line or with its arguments) opens a block of string lines — the prompt
// the model is given, written as the program's source — that the model's
// clause (`from "…"`) closes. The string lines go as content; the decoder,
// the model and the constraints (`where …`) stay.
func findQuerySource(s string, from int) []int {
	for i := from; i < len(s); {
		le := lineEnd(s, i)
		t := strings.TrimLeft(s[i:le], " \t")
		next := le + 1
		if querySourceDecoder(strings.TrimRight(t, " \t\r")) {
			start, end := -1, -1
			for j := next; j < len(s); {
				je := lineEnd(s, j)
				line := strings.TrimSpace(s[j:je])
				switch {
				case line == "":
				case line[0] == '"' || line[0] == '\'' || strings.HasPrefix(line, "f\""):
					if start < 0 {
						start = j + strings.Index(s[j:je], line[:1])
						if line[0] == 'f' {
							start = j + strings.Index(s[j:je], "f\"")
						}
					}
					end = j + strings.LastIndexAny(s[j:je], "\"'") + 1
				default:
					if start >= 0 && end > start && strings.HasPrefix(line, "from ") {
						return []int{start, end, -1, -1, start, end}
					}
					j = len(s)
					continue
				}
				j = je + 1
			}
		}
		i = next
	}
	return nil
}

// querySourceDecoder reports whether a trimmed line is an LMQL decoder
// clause: the decoder's name alone or with its arguments.
func querySourceDecoder(t string) bool {
	for _, d := range [...]string{"argmax", "sample", "beam", "beam_var", "beam_sample", "best_k", "var"} {
		if rest, ok := strings.CutPrefix(t, d); ok && (rest == "" || rest[0] == '(' && rest[len(rest)-1] == ')') {
			return true
		}
	}
	return false
}

// An agent framework's run log names its steps in lines of their own — an
// older CrewAI's verbose output ("[INFO]: == Starting Task: …",
// "[DEBUG]: == [Agent] Task output: …"), a ReAct agent's "Final Answer:
// …", its "Thought:", "Action Input:" and "Answer:" lines) — and its log
// file writes a task's description as a field
// ("agent=…<time>: task=…<time>: status=started"). A task's description,
// its output and a final answer are content; the agent's name ("==
// Working Agent: …"), the status and the times stay.

// agentStepLabels head content to the end of their line; a final answer
// runs on over the lines after it to a blank line or what ends a turn.
var agentStepLabels = []string{"starting task:", "task output:", "final answer:", "task description:", "task text:", "task:", "plan:", "tool output:", "tool result:", "thought:", "action input:", "answer:"}

// proseStepLabel reports whether a step's label is a word common enough
// outside agents' logs ("task:", "plan:") that it heads content only
// before prose: three words or more.
func proseStepLabel(l string) bool { return l == "task:" || l == "plan:" }

// toolOutputLabel reports whether a step's label heads a tool's output,
// which runs on over the lines after it to the next log record.
func toolOutputLabel(l string) bool { return l == "tool output:" || l == "tool result:" }

// stampedRecord reports whether a line starts a log record by its stamp:
// a bracketed time or level ("[2026-…", "[INFO]"), or a log's time.
func stampedRecord(t string) bool {
	return len(t) > 1 && t[0] == '[' && (isDigit(t[1]) || isUpper(t[1])) || len(t) >= 19 && isDigit(t[0]) && isLogTime(t[:19])
}

// inQuotedString reports whether the line's text before it leaves a
// double-quoted string open: a log message inside a JSON record.
func inQuotedString(pre string) bool {
	open := false
	for i := 0; i < len(pre); i++ {
		if pre[i] == '\\' {
			i++
		} else if pre[i] == '"' {
			open = !open
		}
	}
	return open
}

// reactLabel reports whether an agent step's label is one of a ReAct
// transcript's lines of model output (Thought, Action Input, Answer): they
// count only written with a capital, as the prompt format writes them, and
// may also stand after a ':' — an agent's parse error quoting the model's
// text ("Could not extract tool use from input text: Thought: …").
func reactLabel(l string) bool { return l == "thought:" || l == "action input:" || l == "answer:" }

// findAgentStep finds the content after an agent step's label, or a task
// field's description in an agent's log file.
func findAgentStep(s string, from int) []int {
	return findInLines(s, from, agentStepIn)
}

// agentStepIn looks in the line s[ls:le] for a step's label where a step
// starts — the line's start, or after "== ", "]: ", "] " or "> " — or for
// a task field beside an agent's.
func agentStepIn(s string, ls, le int) []int {
	line := s[ls:le]
	for _, l := range agentStepLabels {
		k := indexFold(line, l)
		if k < 0 {
			continue
		}
		prose := proseStepLabel(l)
		if k > 0 && isWord(line[k-1]) && l != "answer:" {
			continue // part of a longer word or label
		}
		if l == "task:" && (k < 3 || line[k-3:k] != "== ") {
			prose = true // "task:" alone is too common a word; CrewAI writes "== Task:"
		}
		react := reactLabel(l)
		if react && (!isUpper(line[k]) || k > 0 && isWord(line[k-1])) {
			continue
		}
		pre := strings.TrimRight(line[:k], " \t")
		if l == "plan:" {
			if pre == "" {
				continue // a tool's own summary line (Terraform's "Plan: 1 to add")
			}
			pre = numberedStep(pre) // a planner's "Task 2 plan:", "Step 3 plan:"
		}
		if pre != "" && !strings.HasSuffix(pre, "==") && !strings.HasSuffix(pre, "]:") && !strings.HasSuffix(pre, "]") && !strings.HasSuffix(pre, ">") && !(react && strings.HasSuffix(pre, ":")) {
			continue
		}
		vs := skipBlanks(s, ls+k+len(l))
		ve := le
		if inQuotedString(line[:k]) {
			for q := vs; q < le; q++ {
				if s[q] == '\\' {
					q++
				} else if s[q] == '"' {
					ve = q // the message's string ends the content
					break
				}
			}
		}
		if prose && strings.Count(strings.TrimSpace(s[vs:ve]), " ") < 2 {
			continue
		}
		if toolOutputLabel(l) {
			for k := le + 1; k < len(s) && k-vs < maxDecodedBytes; {
				e := lineEnd(s, k)
				t := stripANSI(s[k:e])
				if stampedRecord(t) || turnTextEnds(t) {
					break
				}
				if strings.TrimSpace(t) != "" {
					ve = e
				}
				k = e + 1
			}
		}
		if l == "final answer:" {
			for k := le + 1; k < len(s) && k-vs < maxDecodedBytes; {
				e := lineEnd(s, k)
				t := stripANSI(s[k:e])
				if strings.TrimSpace(t) == "" || turnTextEnds(t) {
					break
				}
				ve = e
				k = e + 1
			}
		}
		ve = trimLineEnd(s, vs, ve)
		if ve > vs && !startsWithMarker(s, vs) {
			return []int{ls + k, ve, ls + k, ls + k + len(l), vs, ve}
		}
	}
	// The log file's task field: "task=<description><time>: status=…".
	t := strings.Index(line, "task=")
	if t < 0 || t > 0 && isWord(line[t-1]) || !strings.Contains(line, "agent=") {
		return nil
	}
	vs := ls + t + len("task=")
	ve := le
	for k := vs; k+19 <= le; k++ {
		if isDigit(s[k]) && isLogTime(s[k:k+19]) {
			ve = k
			break
		}
	}
	for k := vs; k < ve; k++ {
		if s[k] == ' ' && nextIsPair(s, k+1) {
			ve = k // the next field: " status=…"
			if s[k-1] == ',' {
				ve--
			}
			break
		}
	}
	if ve <= vs || strings.IndexByte(s[vs:ve], ' ') < 0 || startsWithMarker(s, vs) {
		return nil // one word: a task's name (tasks.send_email), not its description
	}
	return []int{ls + t, ve, ls + t, vs - 1, vs, ve}
}

// numberedStep returns what stands before a numbered step's name at the
// end of pre ("Task 2", "Step 3"), "" when pre is that alone.
func numberedStep(pre string) string {
	e := len(pre)
	for e > 0 && isDigit(pre[e-1]) {
		e--
	}
	if e == len(pre) || e == 0 || pre[e-1] != ' ' {
		return pre
	}
	w := e - 1
	for w > 0 && isLetter(pre[w-1]) {
		w--
	}
	if l := strings.ToLower(pre[w : e-1]); l != "task" && l != "step" {
		return pre
	}
	return strings.TrimRight(pre[:w], " \t")
}

// isLogTime reports whether t is a log's time, "2006-01-02 15:04:05".
func isLogTime(t string) bool {
	for i := 0; i < 19; i++ {
		switch i {
		case 4, 7:
			if t[i] != '-' {
				return false
			}
		case 10:
			if t[i] != ' ' && t[i] != 'T' {
				return false
			}
		case 13, 16:
			if t[i] != ':' {
				return false
			}
		default:
			if !isDigit(t[i]) {
				return false
			}
		}
	}
	return true
}
