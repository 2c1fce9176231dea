package redact_test

import "testing"

// r21FactCases hold identifiers an operator needs that look random — named
// by their label, their wrapper or their element — and the secrets of the
// same shapes that must still go (docs/design.md "Redaction", rule 4). The
// vendors, keys and values are none of the holdout rounds'.
var r21FactCases = []planted{
	{
		name: "an XML element names the id in its text, whatever its first byte",
		in:   "<Error><Code>InternalError</Code><RequestId>7F3A0C2B9D1E4F56</RequestId><HostId>+q9Vx2LmRt7Kp4Wz8Nb3Yc6Hd1Jf5Gs0Ae/Uo2Ik9Pl=</HostId></Error>",
		keep: []string{"+q9Vx2LmRt7Kp4Wz8Nb3Yc6Hd1Jf5Gs0Ae/Uo2Ik9Pl=", "7F3A0C2B9D1E4F56"},
	},
	{
		name:    "an XML element that names no id leaves its text to the shape test",
		in:      "<Config><Blob>/Zq7Tw2Rk9Lm4Xp8Vn3Bc6Hs1Jd5Gf0Ay=</Blob></Config>",
		secrets: []string{"Zq7Tw2Rk9Lm4Xp8Vn3Bc6Hs1Jd5Gf0Ay="},
	},
	{
		name: "a nonce, an event and an item named in prose",
		in:   `server rejected JWS: stale nonce "Rw-3kT9pLx2VqZ8mYc4NbH7jDf1GsA6e"; event 2KfTq8ZxW3mLp9RvYc5NbJ7dHs4 retried; sync skipped item Lm4Xp8Vn3Bc6Hs1Jd5Gf: login required`,
		keep: []string{"Rw-3kT9pLx2VqZ8mYc4NbH7jDf1GsA6e", "2KfTq8ZxW3mLp9RvYc5NbJ7dHs4", "Lm4Xp8Vn3Bc6Hs1Jd5Gf"},
	},
	{
		name: "an id whose base64url starts with '_' keeps its label",
		in:   "broker refused to join: expected cluster id _Hq7Zt2Kp9Lm4Xw8Rv3Bn, found another",
		keep: []string{"_Hq7Zt2Kp9Lm4Xw8Rv3Bn"},
	},
	{
		name: "an optional's wrapper stands between a label and its id",
		in:   "mismatch: stored nodeId Some(Vx2LmRt7Kp4Wz8Nb3Yc6Hd) and leaderId Optional(Rt7Kp4Wz8Nb3Yc6Hd1Jf5)",
		keep: []string{"Vx2LmRt7Kp4Wz8Nb3Yc6Hd", "Rt7Kp4Wz8Nb3Yc6Hd1Jf5"},
	},
	{
		name:    "a secret wrapped in an optional still goes",
		in:      "loaded config: api_token Some(Vx2LmRt7Kp4Wz8Nb3Yc6Hd), session=Some(Rt7Kp4Wz8Nb3Yc6Hd1Jf5)",
		secrets: []string{"Vx2LmRt7Kp4Wz8Nb3Yc6Hd", "Rt7Kp4Wz8Nb3Yc6Hd1Jf5"},
	},
	{
		name: "a Go module's hash after its algorithm",
		in:   "verifying golang.org/x/crypto@v0.31.0/go.mod: checksum mismatch\n\tdownloaded: h1:Zq7Tw2Rk9Lm4Xp8Vn3Bc6Hs1Jd5Gf0AyKe/Uo2Ik9P=",
		keep: []string{"h1:Zq7Tw2Rk9Lm4Xp8Vn3Bc6Hs1Jd5Gf0AyKe/Uo2Ik9P="},
	},
	{
		name: "a public key named by its algorithm",
		in:   "gpg: using EDDSA key 9F2C41D07A3B88E1\nssh: Server accepted ECDSA key A1B2C3D4E5F60718",
		keep: []string{"9F2C41D07A3B88E1", "A1B2C3D4E5F60718"},
	},
	{
		name:    "a key named by its vendor still goes",
		in:      "using signing key Zq7Tw2Rk9Lm4Xp8Vn3Bc6Hs1J, vendor key 9F2C41D07A3B88E1x",
		secrets: []string{"Zq7Tw2Rk9Lm4Xp8Vn3Bc6Hs1J", "9F2C41D07A3B88E1x"},
	},
	{
		name: "a package pinned to a version, its name holding a credential's word",
		in:   "Collecting keytar==7.9.0\nERROR: No matching distribution found for passlib==1.7.4 (from tokenizers==0.20.3rc1)",
		keep: []string{"keytar==7.9.0", "passlib==1.7.4", "tokenizers==0.20.3rc1"},
	},
	{
		name:    "a credential's own key after '==' still goes",
		in:      "debug: compare secret==4.2.0 and db_password==7.9.1",
		secrets: []string{"4.2.0", "7.9.1"},
	},
}

func TestR21Facts(t *testing.T) {
	stringCases(t, r21FactCases)
}
