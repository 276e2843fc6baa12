package escape

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"web":                               "web",
		"café ü 日本":                         "café ü 日本",
		"a\nb":                              `a\nb`,
		"x\r\n::error::pwned":               `x\r\n::error::pwned`,
		"::error file=a,line=1::INJECTED":   `\x3a:error file=a,line=1::INJECTED`,
		"   ::warning::x":                   `   \x3a:warning::x`,
		"\u3000::notice::x":                 "\u3000" + `\x3a:notice::x`,
		"a::b":                              "a::b",
		"fd00::1 a ::error::x b\u3000::y":   `fd00::1 a \x3a:error::x b` + "\u3000" + `\x3a:y`,
		":::":                               `\x3a::`,
		"ok ##[error]legacy":                `ok #\x23[error]legacy`,
		"\x1b[2J\x1b]0;title\x07":           `\x1b[2J\x1b]0;title\a`,
		"zero\u200bwidth":                   `zero\u200bwidth`,
		"rtl\u202egnp.exe \u2066x\u2069":    `rtl\u202egnp.exe \u2066x\u2069`,
		"bom\ufeff soft\u00ad nel\u0085":    `bom\ufeff soft\u00ad nel\u0085`,
		"ls\u2028ps\u2029":                  `ls\u2028ps\u2029`,
		"non\uffff":                         `non\uffff`,
		"bad\xffutf8":                       `bad\xffutf8`,
		"tab\there":                         `tab\there`,
		"kept \uFFFD replacement character": "kept \uFFFD replacement character",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLines(t *testing.T) {
	got := Lines(" ok\n ::error::x\n+\x1b[31mred")
	want := " ok\n " + `\x3a:error::x` + "\n+" + `\x1b[31mred`
	if got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
}

func TestGitHub(t *testing.T) {
	if got, want := GitHubData("50% a\r\nb: c,d"), "50%25 a%0D%0Ab: c,d"; got != want {
		t.Errorf("GitHubData = %q, want %q", got, want)
	}
	if got, want := GitHubProperty("50% a\r\nb: c,d ##["), `50%25 a\r\nb%3A c%2Cd #\x23[`; got != want {
		t.Errorf("GitHubProperty = %q, want %q", got, want)
	}
	// the escaped text holds nothing a workflow command could end at
	if s := GitHubData(Text("x\n::error::y")); strings.ContainsAny(s, "\r\n") {
		t.Errorf("%q holds a line break", s)
	}
}

func TestJSON(t *testing.T) {
	in := map[string]string{"name": "a\u200bb \u202e ##[x] \x7f\u0085 \U000e0041 \x1b\n日本"}
	doc, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(doc)
	for _, r := range string(got) {
		if r != '\n' && Unsafe(r) {
			t.Errorf("raw %U in %s", r, got)
		}
	}
	if strings.Contains(string(got), "##[") {
		t.Errorf("##[ in %s", got)
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["name"] != in["name"] {
		t.Errorf("%s decodes to %q (%v), want %q", got, back["name"], err, in["name"])
	}
}
