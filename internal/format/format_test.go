package format

import "testing"

func TestWordsAndParse(t *testing.T) {
	if got := Words(Report()); got != "text, json or github" {
		t.Errorf("Words(Report()) = %q", got)
	}
	if got := Words(Explain()); got != "text or json" {
		t.Errorf("Words(Explain()) = %q", got)
	}
	if f, err := Parse("github", Report()); f != GitHub || err != nil {
		t.Errorf("Parse(github) = %q, %v", f, err)
	}
	if _, err := Parse("github", Explain()); err == nil || err.Error() != `--output: want text or json, got "github"` {
		t.Errorf("Parse(github, Explain()) = %v", err)
	}
	want := []string{"config", "ytt", "secret", "text", "json", "github", "yaml"}
	if got := Names(); len(got) != len(want) {
		t.Errorf("Names() = %v, want %v", got, want)
	} else {
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("Names() = %v, want %v", got, want)
			}
		}
	}
}
