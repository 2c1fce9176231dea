package redact

import "testing"

// TestLabelledValuesOfAForm: a value under a label no system writes goes
// when it has the shape of a form's datum about a person.
func TestLabelledValuesOfAForm(t *testing.T) {
	const p = "[REDACTED:personal]"
	wantRedacted(t, []struct{ in, want string }{
		{"SMS bounce (MTN 31) — Igama: Zinhle, Isibongo: Luthuli, appt=KZN-ETH-88213",
			"SMS bounce (MTN 31) — Igama: " + p + ", Isibongo: " + p + ", appt=KZN-ETH-88213"},
		{"ERROR egov-gateway (код 0202) — ЖСН: 900412412810; Аты: Әйгерім; request=egov-41c7e2",
			"ERROR egov-gateway (код 0202) — ЖСН: " + p + "; Аты: " + p + "; request=egov-41c7e2"},
		{`B2C falhou (INS-2006) nuit=169394881 msisdn=x`, `B2C falhou (INS-2006) nuit=` + p + ` msisdn=x`},
		{`<detail><IDNP>2004507914437</IDNP><RequestId>mc-2f91aa07</RequestId></detail>`,
			`<detail><IDNP>` + p + `</IDNP><RequestId>mc-2f91aa07</RequestId></detail>`},
		{`{"bvn": "22171028470", "reference": "ref_7Hq2Lk"}`, `{"bvn": "` + p + `", "reference": "ref_7Hq2Lk"}`},
		{`E-VAT rejected (status 422): buyerTin=P0097981087 code=TIN_NOT_REGISTERED`,
			`E-VAT rejected (status 422): buyerTin=` + p + ` code=TIN_NOT_REGISTERED`},
		{`err=ENROLLEE_INACTIVE enrollee_name="Ọláolúwa Fẹ́hintọ́lá Owóyẹmí" claim=clm_91ad`,
			`err=ENROLLEE_INACTIVE enrollee_name="` + p + `" claim=clm_91ad`},
	})
}

// TestLabelledValuesAnOperatorKeeps: a system's labels, English labels,
// references, dates, times, UUIDs, codes in capitals, places and common
// words stay.
func TestLabelledValuesAnOperatorKeeps(t *testing.T) {
	wantNoPersonal(t, "nothing in it is a form's datum",
		"SubmissionId=00206120260612345678 request_id=29115-34620561-1 amount=18500000",
		"sak=NAV-2026-0091 cobranca=COB-2026-771203 dossier: WN/2026/11/48812",
		"Fecha: 2026-03-02, hora: 13:45, Estado: RECHAZADO, datum=02.03.2026",
		`{"uuid": "00000000-0000-0000-0000-000000000001", "ts": 1714569600}`,
		"cidade: Campinas; Ort: Oslo; Mkoa hali: OK; hotel=2155550147",
		"x-iyzi-rnd: 1710400929118 t=1714569600 q=123456789",
		`{"originator":"Clinic","lora":"None","erro":"DevedorInvalido"}`,
		"Die Anfrage ist fehlgeschlagen: Zeitüberschreitung",
		"https://example.com/x?id=12345678&nin=123456789",
	)
}

// TestLabelledBirthDatesAndElements: a birth date under a form's label, a
// name with a particle, and an XML element named by a personal key of
// another language go; a recent date stays.
func TestLabelledBirthDatesAndElements(t *testing.T) {
	const p = "[REDACTED:personal]"
	wantRedacted(t, []struct{ in, want string }{
		{"Gebuertsdatum: 17.09.1983\nDatum: 2026-03-02", "Gebuertsdatum: " + p + "\nDatum: 2026-03-02"},
		{"Születési dátum: 1961. 05. 30.\n", "Születési dátum: " + p + "\n"},
		{`{"ainm":"Pádraig Ó Súilleabháin","code":"DUP_PPS"}`, `{"ainm":"` + p + `","code":"DUP_PPS"}`},
		{`<ФИО><Фамилия>Кузнецова</Фамилия><Имя>Анастасия</Имя></ФИО>`, `<ФИО><Фамилия>` + p + `</Фамилия><Имя>` + p + `</Имя></ФИО>`},
		{`contact="Marie-Paule Kieffer" err=THROTTLED`, `contact="` + p + `" err=THROTTLED`},
	})
}
