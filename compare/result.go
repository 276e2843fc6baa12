package compare

// Verdict is whether the write would change the live object.
type Verdict string

const (
	// NoChange: the write would leave the object as it is (content, managedFields, generation).
	NoChange Verdict = "NoChange"
	// Changes: the write would change the object; Fields say where.
	Changes Verdict = "Changes"
	// Unsure: nothing known changes, but a field's fate depends on what cannot be known offline
	// (a mutating webhook, the kind's update strategy): write.
	Unsure Verdict = "Unsure"
)

// Effect is what the write would do to one differing field.
type Effect string

const (
	// Kept: the write leaves the live value (defaulted by the server, owned by another manager
	// under server-side apply, written canonically): a difference that needs no write.
	Kept Effect = "kept"
	// Set: the write puts the desired value in place of the live one.
	Set Effect = "set"
	// Removed: the write removes the live value (an update that omits it; an apply that no longer
	// declares a field its manager alone owned).
	Removed Effect = "removed"
	// Owned: the value stays, but the write changes who owns the field in managedFields (an
	// apply declaring a field its manager does not own yet, or no longer declaring one another
	// manager owns too).
	Owned Effect = "owned"
	// Unknown: what the write does to the field cannot be known offline.
	Unknown Effect = "unknown"
)

// Field is one field the write concerns.
type Field struct {
	// Path is the field, dotted, list items by their merge keys:
	// spec.template.spec.containers[name=web].image.
	Path   string
	Effect Effect
	// Class is why the live value differs from the desired one, as rebasegen explain says it:
	// defaulted, calculated, admission, controller, drift, unknown, kapp-artifact, adoption,
	// pending; "managed" for a field whose value agrees and only its ownership differs.
	Class string
	// Owner is the manager owning the field in managedFields, when one is known.
	Owner    string
	Evidence string
}

// Result is the comparison of a desired object with the live one.
type Result struct {
	Verdict Verdict
	// Fields are every differing field, the kept ones included (so that a caller sees why no
	// write is needed), in the order of the objects' fields.
	Fields []Field
}

// NeedsWrite reports whether the caller should write: the object would change, or it may.
func (r *Result) NeedsWrite() bool { return r.Verdict != NoChange }
