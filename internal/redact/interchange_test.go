package redact_test

import "testing"

// interchangeCases are records of interchange formats whose people the
// format's own fields name (docs/design.md "Redaction", 5). The people,
// values and messages are none of the holdout rounds'.
var interchangeCases = []planted{
	{
		name:    "an LDIF person entry",
		in:      "ldapmodify: Constraint violation (19)\ndn: uid=jrivas,ou=staff,dc=example,dc=org\nobjectClass: inetOrgPerson\ncn: Javier Rivas Ortega\nsn: Rivas\ngivenName: Javier\nmobile: +34 612 345 678\nhomePostalAddress: Calle Mayor 3$28013 Madrid\nemployeeType: contractor\n",
		secrets: []string{"Javier Rivas Ortega", "+34 612 345 678", "Calle Mayor 3$28013 Madrid"},
		keep:    []string{"uid=jrivas,ou=staff,dc=example,dc=org", "employeeType: contractor", "Constraint violation (19)"},
	},
	{
		name: "an LDIF group keeps its cn",
		in:   "dn: cn=deployers,ou=groups,dc=example,dc=org\nobjectClass: groupOfNames\ncn: deployers\nmember: uid=jrivas,ou=staff,dc=example,dc=org\n",
		keep: []string{"cn: deployers", "objectClass: groupOfNames"},
	},
	{
		name:    "an iCalendar attendee's and organizer's names",
		in:      "BEGIN:VEVENT\nSUMMARY:Roadmap sync\nORGANIZER;CN=Leilani Kahale:mailto:leilani@example.org\nATTENDEE;ROLE=OPT-PARTICIPANT;CN=\"Tomás Ferreira\";RSVP=FALSE:mailto:tomas@example.org\nEND:VEVENT",
		secrets: []string{"Leilani Kahale", "Tomás Ferreira"},
		keep:    []string{"SUMMARY:Roadmap sync", "ROLE=OPT-PARTICIPANT"},
	},
	{
		name:    "a pydicom dump's patient",
		in:      "(0008, 0020) Study Date                          DA: '20260102'\n(0010, 0010) Patient's Name                      PN: 'Okafor^Chidi^E'\n(0010, 0030) Patient's Birth Date                DA: '19710823'\n(0008, 0090) Referring Physician's Name         PN: 'Lindgren^Maja'\n(0008, 0080) Institution Name                   LO: 'St Olav Clinic'",
		secrets: []string{"Okafor^Chidi", "19710823", "Lindgren^Maja"},
		keep:    []string{"Study Date                          DA: '20260102'", "St Olav Clinic"},
	},
	{
		name:    "an X12 837 subscriber, its payer stays",
		in:      "NM1*PR*2*NORTHWIND HEALTH PLAN*****PI*55123~NM1*QC*1*OYELARAN*FUNMI****MI*W771234502~N3*88 ORCHARD ROW~DMG*D8*19880217*F~REF*SY*123456789~CLM*A37YH556*500***11:B:1~",
		secrets: []string{"OYELARAN", "FUNMI", "W771234502", "88 ORCHARD ROW", "19880217", "123456789"},
		keep:    []string{"NORTHWIND HEALTH PLAN", "CLM*A37YH556*500"},
	},
	{
		name:    "a SWIFT MT202COV's underlying customers",
		in:      ":20:COV-88213\n:50K:/GB33BUKB20201555555555\nHARRIET OKONJO-BELL\n14 QUAYSIDE MEWS\nLEEDS LS1 4DY\n:57A:COBADEFFXXX\n:59:/0012345678\nJURGEN WEISSMULLER\nHAFENSTRASSE 9\n:71A:OUR\n-}",
		secrets: []string{"HARRIET OKONJO-BELL", "14 QUAYSIDE MEWS", "JURGEN WEISSMULLER", "HAFENSTRASSE 9"},
		keep:    []string{":20:COV-88213", ":57A:COBADEFFXXX", ":71A:OUR"},
	},
}

func TestInterchangeRecords(t *testing.T) {
	t.Parallel()
	stringCases(t, interchangeCases)
}
