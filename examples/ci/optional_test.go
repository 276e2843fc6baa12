package ci

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The values file is optional (newcomer walkthrough 4): a package whose defaults are all it
// needs has none, and the script refused three arguments. Called with three, it checks the
// package without --values; with four, with them. A stand-in rebasegen on PATH prints the
// arguments it was given, so the test reads exactly what the script runs.
func TestCheckPackageValuesFileIsOptional(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	stub := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n"
	if err := os.WriteFile(filepath.Join(dir, "rebasegen"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
		env  []string // OUTPUT and NAMESPACE, empty unless set here
	}{
		{[]string{"config", "live.yaml", "rules.yml"}, "check --package config --live live.yaml --rules rules.yml --output text", nil},
		{[]string{"config", "values.yml", "live.yaml", "rules.yml"}, "check --package config --values values.yml --live live.yaml --rules rules.yml --output text", nil},
		// check's flags the script has no argument for (issue 28): after --, passed on as they are
		{[]string{"config", "live.yaml", "rules.yml", "--", "--fail-on-create", "--fail-on-delete"}, "check --package config --live live.yaml --rules rules.yml --output text --fail-on-create --fail-on-delete", nil},
		{[]string{"config", "values.yml", "live.yaml", "rules.yml", "--", "--value", "name=shop"}, "check --package config --values values.yml --live live.yaml --rules rules.yml --output text --value name=shop", nil},
		{[]string{"config", "live.yaml", "rules.yml"}, "check --package config --live live.yaml --rules rules.yml --output github --namespace shop", []string{"OUTPUT=github", "NAMESPACE=shop"}},
		// flags after -- win over OUTPUT and NAMESPACE (newcomer17 N17-5): the script passed its
		// own --output too, and check refuses --output text -o json ("two forms of the same flag")
		{[]string{"config", "live.yaml", "rules.yml", "--", "-o", "json"}, "check --package config --live live.yaml --rules rules.yml -o json", nil},
		{[]string{"config", "live.yaml", "rules.yml", "--", "--output=json", "-n", "web"}, "check --package config --live live.yaml --rules rules.yml --output=json -n web", []string{"OUTPUT=github", "NAMESPACE=shop"}},
		{[]string{"config", "live.yaml", "rules.yml", "--", "--namespace=web", "--value", "o=n"}, "check --package config --live live.yaml --rules rules.yml --output github --namespace=web --value o=n", []string{"OUTPUT=github", "NAMESPACE=shop"}},
	} {
		cmd := exec.Command(bash, append([]string{"check-package.sh"}, tc.args...)...)
		cmd.Env = append(append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "OUTPUT=", "NAMESPACE="), tc.env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%v: %v\n%s", tc.args, err, out)
			continue
		}
		if got := strings.Join(strings.Fields(string(out)), " "); got != tc.want {
			t.Errorf("%v: ran rebasegen %s, want %s", tc.args, got, tc.want)
		}
	}
}
