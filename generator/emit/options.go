package emit

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/format"
	"github.com/rebasegen/rebasegen/internal/generated"
)

// Options is everything that changes what generate writes: the inputs and every output flag. The
// header of a generated file records it as the command that regenerates the file, and check reads
// it back with ParseCommand to test whether the file is stale. Both directions live here, driven
// by one flag table, so a flag cannot be written without being read.
//
// The command is the record's serialised form: ParseCommand rejects a flag it does not know (a
// header from a newer rebasegen) instead of regenerating something else.
type Options struct {
	Desired, Live, CRDs, Rulesets []string // sorted when written: their order never changes the output
	Packages, Values              []string // ytt -f, --data-values-file: order matters to ytt
	ValueArgs, ValueYAMLArgs      []string // ytt -v, --data-value-yaml
	PackageCR                     string
	Namespace                     string // "" when not given
	ServerVersion                 string // --server-version; "" when not given
	Format                        Format // --output; "" is FormatConfig
	NamespaceValues               []string
	PackageInstall                string // [NAMESPACE/]NAME: PackageInstallRef
	IncludeUnknown                bool
	NoOperational                 bool
	OutputFile                    string // "" or "-": stdout
}

// optionFlag is one flag of the record; list flags repeat.
type optionFlag struct {
	name   string
	sorted bool
	list   func(o *Options) *[]string
	one    func(o *Options) *string
}

// optionFlags in the order the command writes them.
var optionFlags = []optionFlag{
	{name: "desired", sorted: true, list: func(o *Options) *[]string { return &o.Desired }},
	{name: "live", sorted: true, list: func(o *Options) *[]string { return &o.Live }},
	{name: "crd", sorted: true, list: func(o *Options) *[]string { return &o.CRDs }},
	{name: "ruleset", sorted: true, list: func(o *Options) *[]string { return &o.Rulesets }},
	{name: "package", list: func(o *Options) *[]string { return &o.Packages }},
	{name: "values", list: func(o *Options) *[]string { return &o.Values }},
	{name: "value", list: func(o *Options) *[]string { return &o.ValueArgs }},
	{name: "value-yaml", list: func(o *Options) *[]string { return &o.ValueYAMLArgs }},
	{name: "package-cr", one: func(o *Options) *string { return &o.PackageCR }},
	{name: "namespace-value", sorted: true, list: func(o *Options) *[]string { return &o.NamespaceValues }},
	{name: "namespace", one: func(o *Options) *string { return &o.Namespace }},
	{name: "server-version", one: func(o *Options) *string { return &o.ServerVersion }},
	{name: "output", one: func(o *Options) *string { return (*string)(&o.Format) }},
	{name: "package-install", one: func(o *Options) *string { return &o.PackageInstall }},
	{name: "output-file", one: func(o *Options) *string { return &o.OutputFile }},
}

// Synth are the synthesis options of the rules o writes: a rules Secret's are one install's
// (writeSecret narrows them again, which changes nothing then), verified as written.
func (o Options) Synth() synth.Options {
	return synth.Options{IncludeUnknown: o.IncludeUnknown, OwnResources: o.Format == FormatSecret}
}

// Misplaced refuses a flag of another format than o.Format's: --namespace-value is the ytt
// format's, --package-install the secret format's. Taken with another, it did nothing, and the
// header's Regenerate line recorded it, as if the file followed it (newcomer13 N13-8). generate
// asks before any work; a header read back (check) is regenerated as it is.
func (o Options) Misplaced() error {
	f := o.Format
	if f == "" {
		f = FormatConfig
	}
	switch {
	case len(o.NamespaceValues) > 0 && f != FormatYTT:
		return fmt.Errorf("--namespace-value %s needs --output ytt: --output %s writes each namespace as it is, following no data value", escape.Text(o.NamespaceValues[0]), f)
	case o.PackageInstall != "" && f != FormatSecret:
		return fmt.Errorf("--package-install %s needs --output secret: --output %s writes no Secret for a PackageInstall", escape.Text(o.PackageInstall), f)
	}
	return nil
}

// PackageInstallRef splits a PackageInstall named as --package-install takes it, [NAMESPACE/]NAME:
// the namespace ("" when not given: the objects' namespace, --namespace) and the name. A
// PackageInstall may sit in another namespace than the objects it installs (its
// spec.defaultNamespace); the Secret of its rules and its kapp app go into its own.
func PackageInstallRef(ref string) (namespace, name string) {
	if ns, n, ok := strings.Cut(ref, "/"); ok {
		return ns, n
	}
	return "", ref
}

// Args are the arguments after "rebasegen generate" that reproduce the output.
func (o Options) Args() []string {
	var args []string
	for _, f := range optionFlags {
		if f.list != nil {
			vals := slices.Clone(*f.list(&o))
			if f.sorted {
				slices.Sort(vals)
			}
			for _, v := range vals {
				args = append(args, "--"+f.name, v)
			}
		} else if v := *f.one(&o); v != "" {
			args = append(args, "--"+f.name, v)
		}
	}
	if o.IncludeUnknown {
		args = append(args, "--include-unknown")
	}
	if o.NoOperational {
		args = append(args, "--no-operational")
	}
	return args
}

// Command is the shell command that regenerates the output, each argument quoted for a POSIX
// shell when it needs it.
func (o Options) Command() string {
	parts := []string{"rebasegen", "generate"}
	for _, a := range o.Args() {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// InputNames are the input files, sorted, for the header's first line.
func (o Options) InputNames() []string {
	names := slices.Concat(o.Desired, o.Live, o.CRDs, o.Rulesets, o.Packages, o.Values)
	if o.PackageCR != "" {
		names = append(names, o.PackageCR)
	}
	slices.Sort(names)
	return names
}

// Recorded reads the options a generated file's header records in its Regenerate line (the
// Secret format nests its header); false when it has none.
func Recorded(file, text string) (Options, bool, error) {
	cmd, ok := generated.Command(text)
	if !ok {
		return Options{}, false, nil
	}
	o, err := ParseCommand(cmd)
	if err != nil {
		return o, false, fmt.Errorf("%s: header: %w", file, err)
	}
	return o, true, nil
}

// InPlace is the command regenerating file in place when o, the options its header's Regenerate
// line records, write the rules to stdout: generated with "> file", running that line prints them
// and leaves the file as it was. "" when the line writes a file itself.
func (o Options) InPlace(file string) string {
	if o.OutputFile != "" && o.OutputFile != "-" {
		return ""
	}
	o.OutputFile = file
	return o.Command()
}

// Regenerates is the command that regenerates file, whose content is text: the one its header's
// Regenerate line records (in place, InPlace, when that line prints the rules), or the header of
// the rules a Secret in any form holds; false when text records none.
func Regenerates(file string, text []byte) (string, bool) {
	header := string(text)
	if sec, ok := generated.ReadSecret(text); ok && !generated.Marked(text) {
		header = sec.Body
	}
	o, ok, err := Recorded(file, header)
	if err != nil || !ok {
		return "", false
	}
	if cmd := o.InPlace(file); cmd != "" {
		return cmd, true
	}
	return o.Command(), true
}

// ParseCommand reads back what Command wrote.
func ParseCommand(cmd string) (Options, error) {
	words, err := shellSplit(cmd)
	if err != nil {
		return Options{}, err
	}
	if len(words) < 2 || words[0] != "rebasegen" || words[1] != "generate" {
		return Options{}, fmt.Errorf("not a rebasegen generate command: %q", cmd)
	}
	var o Options
	for i := 2; i < len(words); i++ {
		name, ok := strings.CutPrefix(words[i], "--")
		if words[i] == "-o" {
			name, ok = "o", true
		}
		if !ok {
			return Options{}, fmt.Errorf("unexpected argument %q", words[i])
		}
		if name == "include-unknown" {
			o.IncludeUnknown = true
			continue
		}
		if name == "no-operational" {
			o.NoOperational = true
			continue
		}
		if name == "format" || name == "o" { // headers written before -o became the format
			name = "output"
		}
		j := slices.IndexFunc(optionFlags, func(f optionFlag) bool { return f.name == name })
		if j < 0 {
			return Options{}, fmt.Errorf("unknown option --%s (written by a newer rebasegen?)", name)
		}
		if i+1 >= len(words) {
			return Options{}, fmt.Errorf("--%s without a value", name)
		}
		i++
		switch f := optionFlags[j]; {
		case f.list != nil:
			*f.list(&o) = append(*f.list(&o), words[i])
		case name == "output" && !slices.Contains(format.Rules(), Format(words[i])):
			o.OutputFile = words[i] // --output PATH in headers written before --output-file
		default:
			*f.one(&o) = words[i]
		}
	}
	return o, nil
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// shellQuote quotes s for a POSIX shell (sh is dash on Debian, Ubuntu and GitHub's runners,
// which has no $'...'): single quotes, each single quote in s closing them, backslashed. Where the quoted word holds
// "::" after a space or "##[", which a GitHub runner reads as a workflow command and the header's
// escaping would rewrite, each ':' and '#' is written outside the quotes, backslashed: the
// comment then holds exactly what sh reads back as s. A value holding a character the header's
// comment cannot hold as it is (control, format, invalid UTF-8) has no such POSIX form on one
// line: generate refuses it (Recordable).
func shellQuote(s string) string {
	if shellSafe.MatchString(s) && !strings.Contains(s, "::") {
		return s
	}
	q := "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	if escape.Text(" "+q) == " "+q {
		return q
	}
	return "'" + strings.NewReplacer("'", `'\''`, ":", `'\:'`, "#", `'\#'`).Replace(s) + "'"
}

// Recordable says, naming the flag, when a value the Regenerate line would record holds a
// character no POSIX quoting writes on the line of a comment (a line break, a control or format
// character, invalid UTF-8): the line would not rerun the command.
func Recordable(flag, value string) error {
	for i, r := range value {
		if _, n := utf8.DecodeRuneInString(value[i:]); escape.Unsafe(r) || r == utf8.RuneError && n == 1 {
			return fmt.Errorf("--%s %s: holds %s, which the Regenerate line of the header cannot record for sh (POSIX quoting has no escape on one line); rename the file, or write the value in a --values file",
				flag, escape.Text(value), escape.Text(value[i:i+n]))
		}
	}
	return nil
}

// Recordable is Recordable of every value o records, checked before generate does any work.
func (o Options) Recordable() error {
	for _, f := range optionFlags {
		vals := []string{}
		if f.list != nil {
			vals = *f.list(&o)
		} else {
			vals = append(vals, *f.one(&o))
		}
		for _, v := range vals {
			if err := Recordable(f.name, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// shellSplit splits what shellQuote joined: words separated by spaces, single-quoted parts
// taken literally, ANSI-C quoted parts ($'...') with their escapes read as bash reads them, a
// backslash outside quotes escaping the next character.
func shellSplit(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteByte(c)
		case c == '$' && i+1 < len(s) && s[i+1] == '\'':
			n, err := ansiC(s[i+2:], &w)
			if err != nil {
				return nil, err
			}
			i += 1 + n // the loop steps past the closing quote
			inWord = true
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// ansiC reads the body of a $'...' word up to its closing quote into w, with the escapes bash
// reads there (\xHH, \NNN octal, \n, \t, \r, \\, \', \"...), and returns the bytes it read,
// the closing quote included.
func ansiC(s string, w *strings.Builder) (int, error) {
	named := map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'a': '\a', 'b': '\b', 'f': '\f', 'v': '\v', 'e': 0x1b, 'E': 0x1b,
		'\\': '\\', '\'': '\'', '"': '"', '?': '?'}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\'' {
			return i + 1, nil
		}
		if c != '\\' || i+1 == len(s) {
			w.WriteByte(c)
			continue
		}
		i++
		digits := func(max int, ok func(byte) bool) string {
			j := i
			for j < len(s) && j-i < max && ok(s[j]) {
				j++
			}
			return s[i:j]
		}
		switch e := s[i]; {
		case named[e] != 0:
			w.WriteByte(named[e])
		case e == 'x':
			i++
			hex := digits(2, isHex)
			if hex == "" {
				w.WriteString(`\x`)
				i--
				continue
			}
			v, _ := strconv.ParseUint(hex, 16, 8)
			w.WriteByte(byte(v))
			i += len(hex) - 1
		case e >= '0' && e <= '7':
			oct := digits(3, func(c byte) bool { return c >= '0' && c <= '7' })
			v, _ := strconv.ParseUint(oct, 8, 16)
			w.WriteByte(byte(v))
			i += len(oct) - 1
		default:
			w.WriteByte('\\')
			w.WriteByte(e)
		}
	}
	return 0, fmt.Errorf("unterminated $' quote in %q", s)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// ShellQuote quotes s for a POSIX shell, as the Regenerate: lines of rebasegen's headers do.
func ShellQuote(s string) string { return shellQuote(s) }

// SecretValue is what a header records in place of a data value a Secret holds.
const SecretValue = "<redacted: a Secret's value>"

// WithoutSecretValues is o with each --value and --value-yaml whose value some Secret holds
// (secrets: their values, load.SecretValues), or given as an argument derived holds (one a
// Secret's value is derived from), recorded as KEY=SecretValue: a generated file is committed,
// and data values given on the command line are how credentials reach a package.
func (o Options) WithoutSecretValues(secrets []string, derived map[string]bool) Options {
	redact := func(args []string) []string {
		out := slices.Clone(args)
		for i, a := range out {
			key, value, ok := strings.Cut(a, "=")
			if !ok || value == "" {
				continue
			}
			if derived[a] {
				out[i] = key + "=" + SecretValue
				continue
			}
			var parsed any // a --value-yaml's value as ytt reads it
			if yaml.Unmarshal([]byte(value), &parsed) == nil {
				if str, ok := parsed.(string); ok && str != "" {
					value = str
				}
			}
			if slices.ContainsFunc(secrets, func(s string) bool { return strings.Contains(s, value) }) {
				out[i] = key + "=" + SecretValue
			}
		}
		return out
	}
	o.ValueArgs, o.ValueYAMLArgs = redact(o.ValueArgs), redact(o.ValueYAMLArgs)
	return o
}
