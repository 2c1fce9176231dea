package redact

// findEmail finds an e-mail address as the expression
// `[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b`
// matches it, by hand from each '@' (TestFindEmailIsTheExpression): the
// expression's engine tried every start of a local part's run and cost a
// quarter of redacting a record.
func findEmail(s string, from int) []int {
	for i := from; i < len(s); i++ {
		if s[i] != '@' {
			continue
		}
		ls := i
		for ls > from && emailLocal(s[ls-1]) {
			ls--
		}
		if ls == i {
			continue
		}
		// The domain's labels; the address ends after the last of them, at
		// least the second, whose letters (two or more) end at a word's end.
		end := -1
		k := i + 1
		for n := 0; k < len(s); n++ {
			ks := k
			for k < len(s) && (isAlnum(s[k]) || s[k] == '-') {
				k++
			}
			if k == ks {
				break
			}
			if n > 0 {
				le := ks
				for le < k && isLetter(s[le]) {
					le++
				}
				if le-ks >= 2 && (le == len(s) || !isWord(s[le])) {
					end = le
				}
			}
			if k+1 >= len(s) || s[k] != '.' {
				break
			}
			k++
		}
		if end > 0 && !messageID(s, ls, i, end) {
			return []int{ls, end, -1, -1, ls, end}
		}
	}
	return nil
}

// messageID reports whether the address s[ls:end] (its '@' at at) is a
// message's id (RFC 5322's msg-id, a Message-ID or an API's message id),
// not a mailbox: in angle brackets, its local part two or more pieces
// between dots, none a word — a time of 8 digits or more, a counter, hex
// (<20260314102201.8f2a1c@mailer.example.net>). A mailbox's local part
// holds a name or is one number (a QQ mailbox).
func messageID(s string, ls, at, end int) bool {
	if ls == 0 || s[ls-1] != '<' || end >= len(s) || s[end] != '>' {
		return false
	}
	pieces, long := 0, false
	for a := ls; a < at; {
		b := a
		for b < at && s[b] != '.' {
			b++
		}
		p := s[a:b]
		switch {
		case p == "":
			return false
		case isAllDigits(p):
			long = long || len(p) >= 8
		case isHexPiece(p):
			long = long || len(p) >= 8
		default:
			return false
		}
		pieces++
		a = b + 1
	}
	return pieces >= 2 && long
}

func emailLocal(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-'
}
