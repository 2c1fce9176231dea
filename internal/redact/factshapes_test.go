package redact_test

import "testing"

// factShapeCases hold plain facts beside the rules that took them — a
// queue's records under a content key, a status answered for a secret,
// an error element's text, a chain's transaction — and the secrets and
// prompts those rules must still take (docs/design.md "Redaction"), in
// other services' wordings than the holdout rounds'.
var factShapeCases = []planted{
	{
		name:    "a mail API's messages are records, a chat's are turns",
		in:      `{"messages": [{"id": "18c9f2ab", "threadId": "18c9f2ab", "labelIds": ["INBOX", "UNREAD"]}], "resultSizeEstimate": 1}` + "\n" + `{"messages": [{"role": "user", "content": "Cancel my gym membership from next month"}]}`,
		secrets: []string{"Cancel my gym membership"},
		keep:    []string{`"threadId": "18c9f2ab"`, `"labelIds": ["INBOX", "UNREAD"]`, `"resultSizeEstimate": 1`},
	},
	{
		name:    "a status answered for a secret stays, the secret goes",
		in:      "vault: could not read token: 403 Forbidden\ndoppler: api_key: 500 Internal Server Error\nVAULT_TOKEN: hvs.CAESIJx9kQ2mLr7tYp\n",
		secrets: []string{"hvs.CAESIJx9kQ2mLr7tYp"},
		keep:    []string{"403 Forbidden", "500 Internal Server Error"},
	},
	{
		name:    "an error element's text stays, a prompt element's goes",
		in:      `<Response><Errors><Error><Code>InvalidParameter</Code><Message>The text field exceeds the allowed length</Message></Error></Errors></Response><env:Fault><env:Reason><env:Text xml:lang="de">Person im Register nicht gefunden</env:Text></env:Reason></env:Fault><req><text>Please write my wedding speech for my sister</text></req>`,
		secrets: []string{"wedding speech for my sister"},
		keep:    []string{"Person im Register nicht gefunden", "The text field exceeds the allowed length"},
	},
	{
		name:    "a platform's generated host stays, a token in the URL goes",
		in:      "POST https://summarizer-q8w3e5r7t9-uc.a.run.app/v1/jobs?token=Ab3kZ9qLm2Xc7Vb1Nw4 -> 503\nGET https://web-3f9c2a1b7d-acme.vercel.app/api/health -> 200",
		secrets: []string{"Ab3kZ9qLm2Xc7Vb1Nw4"},
		keep:    []string{"https://summarizer-q8w3e5r7t9-uc.a.run.app/v1/jobs", "https://web-3f9c2a1b7d-acme.vercel.app/api/health"},
	},
	{
		name:    "a transaction's hash stays, a private key goes",
		in:      "WARN relayer: nonce too low txid=0x9a3f51c7d2e84b06f1a2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718 chain=polygon\nsigner_private_key=0x4c0883a69102937d6231471b5dbb6204fe512961708279f3c0f1e1a6b1d7e0b2",
		secrets: []string{"4c0883a69102937d6231471b5dbb6204fe512961708279f3c0f1e1a6b1d7e0b2"},
		keep:    []string{"0x9a3f51c7d2e84b06f1a2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718", "chain=polygon"},
	},
}

func TestFactShapes(t *testing.T) {
	stringCases(t, factShapeCases)
}
