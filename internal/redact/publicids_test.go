package redact_test

import "testing"

// publicIDCases hold public identifiers the random-token rule would take for
// keys (docs/design.md "Redaction", rule 4: the safe shapes), config values
// that name where a secret is kept rather than hold it (rule 3), and the
// secrets of the same shapes that must still go. The vendors, keys and
// values are none of the holdout rounds'.
var publicIDCases = []planted{
	{
		name: "bech32 addresses and recipients by their checksum",
		in:   "withdraw to bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3 failed; delegator=cosmos14l92ycauq5r8ankjx0ht2j435wmft85fe9pzda author npub194c3vs4hy6cygqtz0j5lhtpj7hy9xra3jq7vfkczykr30ys6fzqsjkt6hs",
		keep: []string{"bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3", "cosmos14l92ycauq5r8ankjx0ht2j435wmft85fe9pzda", "npub194c3vs4hy6cygqtz0j5lhtpj7hy9xra3jq7vfkczykr30ys6fzqsjkt6hs"},
	},
	{
		name:    "a bech32 secret, or a bad checksum, still goes",
		in:      "relay login with nsec14l92ycauq5r8ankjx0ht2j435wmft85fqtp5k5fxedqrx28fd79szgcjl6 and sig cosmos14l92ycauq5r8ankjx0ht2j435wmft85fe9pzdq7x",
		secrets: []string{"nsec14l92ycauq5r8ankjx0ht2j435wmft85fqtp5k5fxedqrx28fd79szgcjl6", "cosmos14l92ycauq5r8ankjx0ht2j435wmft85fe9pzdq7x"},
	},
	{
		name: "an Ethereum address, an IPFS content id, an onion service",
		in:   "revert: transfer from 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed; pinned bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku and QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG; mirror http://2gzyxa5ihm7nsggfxnu52rck2vv4rvmdlkiu3zzui5du4xyclen53wid.onion/feed",
		keep: []string{"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku", "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG", "2gzyxa5ihm7nsggfxnu52rck2vv4rvmdlkiu3zzui5du4xyclen53wid.onion"},
	},
	{
		name:    "an Ethereum private key is no address",
		in:      "signer=0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318aB",
		secrets: []string{"4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318aB"},
	},
	{
		name:    "a URI's chain names the resource its id is",
		in:      "queue skipped spotify:episode:5Xt9vQmL2pRz8KwY3bNcJd and deezer:playlist:Qx81mTr5Vb2LoPz4Wk7; vault:secret:Qx81mTr5Vb2LoPz4Wk7aZ",
		keep:    []string{"spotify:episode:5Xt9vQmL2pRz8KwY3bNcJd", "deezer:playlist:Qx81mTr5Vb2LoPz4Wk7"},
		secrets: []string{"Qx81mTr5Vb2LoPz4Wk7aZ"},
	},
	{
		name: "a resource's id after its collection in a path",
		in:   `GET https://api.airtable.example/v0/appXk39Lm2Qp7Rt1w/tables/tblR82kXq9PmZ3sVw 404; not found: collections/invoices/Hq7Zt2Kp9Lm4Xw8Rv3Bn`,
		keep: []string{"/tables/tblR82kXq9PmZ3sVw", "collections/invoices/Hq7Zt2Kp9Lm4Xw8Rv3Bn"},
	},
	{
		name:    "a link's own token in a path still goes",
		in:      `accept at https://app.example.com/invites/Hq7Zt2Kp9Lm4Xw8Rv3Bn7 or https://api.example.com/v2/Zr8Wt3Lm9Kq2Xp7Vb4Nc5/blocks`,
		secrets: []string{"Hq7Zt2Kp9Lm4Xw8Rv3Bn7", "Zr8Wt3Lm9Kq2Xp7Vb4Nc5"},
	},
	{
		name: "a page's slug before its hex id",
		in:   `see https://wiki.example.net/Postmortem-checkout-outage-0a9b8c7d6e5f40312a3b4c5d6e7f8091`,
		keep: []string{"Postmortem-checkout-outage-0a9b8c7d6e5f40312a3b4c5d6e7f8091"},
	},
	{
		name:    "a message id is no mailbox",
		in:      "Message-Id: <1710412345.3f9a0c.7c2e@smtp.example.org>\nIn-Reply-To: <20260102093000.44120@lists.example.org>\nFrom: <88213344@qq.example.com>, <jane.doe@example.com>",
		keep:    []string{"<1710412345.3f9a0c.7c2e@smtp.example.org>", "<20260102093000.44120@lists.example.org>"},
		secrets: []string{"88213344@qq.example.com", "jane.doe@example.com"},
	},
	{
		name:    "a JSON document in base64 is read, not taken for a key",
		in:      `{"ackId":"a1","payload":"eyJ0eXBlIjoiaW52b2ljZS5wYWlkIiwiYXR0ZW1wdCI6Mn0=","leak":"eyJwYXNzd29yZCI6IlRyMHViNGRvciYzeFEifQ=="}`,
		keep:    []string{"eyJ0eXBlIjoiaW52b2ljZS5wYWlkIiwiYXR0ZW1wdCI6Mn0="},
		secrets: []string{"eyJwYXNzd29yZCI6IlRyMHViNGRvciYzeFEifQ=="},
	},
	{
		name: "a number's label and a base64url id after its label",
		in:   "label created invoice_number=INV9Xk2Pq7Lm3Zr8Wt\nX-Request-Id: -Qm8vT2kLp9Zx4Rw7Yb",
		keep: []string{"invoice_number=INV9Xk2Pq7Lm3Zr8Wt", "X-Request-Id: -Qm8vT2kLp9Zx4Rw7Yb"},
	},
	{
		name: "where a secret is kept is no secret",
		in:   "DATABASE_PASSWORD: ${DATABASE_PASSWORD}\napi_token = {{ vault_api_token }}\nsmtp_password: !env_var SMTP_PASS\nsecret_key = %(SECRET)s\nclient_secret = None\nauth_enabled: false\ncurl -H 'Authorization: Token {{ci_token}}' https://api.example.com",
		keep: []string{"${DATABASE_PASSWORD}", "{{ vault_api_token }}", "!env_var SMTP_PASS", "%(SECRET)s", "client_secret = None", "auth_enabled: false", "Token {{ci_token}}"},
	},
	{
		name:    "a variable's default may be the secret",
		in:      "password=${DB_PASSWORD:-Xy7pQ2rLm9}\ntoken: !vault Zr8Wt3Lm9Kq2Xp7Vb4Nc5",
		secrets: []string{"Xy7pQ2rLm9", "Zr8Wt3Lm9Kq2Xp7Vb4Nc5"},
	},
	{
		name: "a key's setting beside the credential",
		in:   "HMAC_ALGO = sha512\nproxy_auth_user: 771204\nSECRET_STORE_LOGIN=ops-bot",
		keep: []string{"HMAC_ALGO = sha512", "proxy_auth_user: 771204", "SECRET_STORE_LOGIN=ops-bot"},
	},
}

func TestPublicIdentifiersStay(t *testing.T) {
	t.Parallel()
	stringCases(t, publicIDCases)
}
