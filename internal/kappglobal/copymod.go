package kappglobal

// The walk below is kapp v0.66.0's resources/mod_field_copy.go (Apache-2.0, The Carvel Authors),
// step for step, errors and panics included, with one change: see linearCopy.

import (
	"fmt"
	"regexp"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/runtime"
)

// RebaseMod is mod as rebasegen runs kapp's rebase rules on several goroutines and at scale:
// a ytt rule serialised (SerialYTT), a copy rule linear (linearCopy), any other mod as it is.
func RebaseMod(mod ctlres.ResourceModWithMultiple) ctlres.ResourceModWithMultiple {
	if c, ok := mod.(ctlres.FieldCopyMod); ok {
		return linearCopy{c}
	}
	return SerialYTT(mod)
}

// linearCopy is kapp's copy rule (ctlres.FieldCopyMod) with the same result, in time linear in
// the values its path selects: for each value it copies, kapp's copyIntoMap deep-copies the whole
// source object to read that one value, so a path selecting each of N values of an object (env
// values under {allIndexes: true}) cost N copies of the object; linearCopy reads the value in the
// source in place and copies it alone. Reading does not change the source, so the value is the
// one kapp would copy, and the walk goes through the source itself where kapp walks a copy of it
// (the walk writes only into the resource's copy). The resource is updated from the walked copy with DeepCopyIntoFrom (kapp's
// private setUnstructured is out of reach): the same object, kapp's resource type, transient mark
// and origin kept, as setUnstructured keeps them.
type linearCopy struct{ ctlres.FieldCopyMod }

func (t linearCopy) ApplyFromMultiple(res ctlres.Resource, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) error {
	for _, src := range t.Sources {
		source, found := srcs[src]
		if !found {
			continue
		}
		updatedRes := res.DeepCopy()
		updated, err := t.apply(updatedRes.UnstructuredObject(), source.UnstructuredObject(), t.Path, ctlres.Path{}, srcs)
		if err != nil {
			return fmt.Errorf("FieldCopyMod for path '%s' on resource '%s': %s", t.Path.AsString(), res.Description(), err)
		}
		if updated {
			res.DeepCopyIntoFrom(updatedRes)
		}
	}
	return nil
}

func (t linearCopy) apply(obj any, srcObj any, path ctlres.Path, fullPath ctlres.Path, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) (bool, error) {
	for i, part := range path {
		isLast := len(path) == i+1
		fullPath = append(fullPath, part)

		switch {
		case part.MapKey != nil:
			srcTypedObj, ok := srcObj.(map[string]any)
			if !ok {
				return false, fmt.Errorf("Unexpected non-map found: %T", srcObj)
			}
			typedObj, ok := obj.(map[string]any)
			if !ok {
				return false, fmt.Errorf("Unexpected non-map found: %T", obj)
			}
			if isLast {
				return t.copyIntoMap(typedObj, fullPath, srcs)
			}
			var found, srcObjFound bool
			srcObj, srcObjFound = srcTypedObj[*part.MapKey]
			if !srcObjFound || srcObj == nil {
				return false, nil
			}
			obj, found = typedObj[*part.MapKey]
			if !found || obj == nil {
				if path.ContainsArrayIndex() {
					return false, nil
				}
				obj = map[string]any{}
				typedObj[*part.MapKey] = obj
			}

		case part.ArrayIndex != nil:
			if isLast {
				return false, fmt.Errorf("Expected last part of the path to be map key")
			}
			switch {
			case part.ArrayIndex.All != nil:
				typedObj, ok := obj.([]any)
				if !ok {
					return false, fmt.Errorf("Unexpected non-array found: %T", obj)
				}
				srcTypedObj, ok := srcObj.([]any)
				if !ok {
					return false, fmt.Errorf("Unexpected non-array found: %T", srcObj)
				}
				var anyUpdated bool
				for objI, obj := range typedObj {
					newFullPath := append([]*ctlres.PathPart{}, fullPath...)
					newFullPath[len(newFullPath)-1] = &ctlres.PathPart{ArrayIndex: &ctlres.PathPartArrayIndex{Index: &objI}}
					var srcTypeObj map[string]any
					if objI < len(srcTypedObj) {
						srcTypeObj = srcTypedObj[objI].(map[string]any)
					}
					updated, err := t.apply(obj, srcTypeObj, path[i+1:], newFullPath, srcs)
					if err != nil {
						return false, err
					}
					anyUpdated = anyUpdated || updated
				}
				return anyUpdated, nil

			case part.ArrayIndex.Index != nil:
				typedObj, ok := obj.([]any)
				if !ok {
					return false, fmt.Errorf("Unexpected non-array found: %T", obj)
				}
				srcTypedObj, ok := srcObj.([]any)
				if !ok {
					return false, fmt.Errorf("Unexpected non-array found: %T", srcObj)
				}
				if *part.ArrayIndex.Index < len(typedObj) {
					return t.apply(typedObj[*part.ArrayIndex.Index], srcTypedObj[*part.ArrayIndex.Index], path[i+1:], fullPath, srcs)
				}
				return false, nil

			default:
				panic(fmt.Sprintf("Unknown array index: %#v", part.ArrayIndex))
			}

		case part.Regex != nil:
			if part.Regex.Regex == nil {
				panic("Regex should be non nil")
			}
			matchedKeys, err := matchRegexWithSrcObj(*part.Regex.Regex, srcObj)
			if err != nil {
				return false, err
			}
			var anyUpdated bool
			for _, key := range matchedKeys {
				newPath := append(ctlres.Path{&ctlres.PathPart{MapKey: &key}}, path[i+1:]...)
				updated, err := t.apply(obj, srcObj, newPath, fullPath[:len(fullPath)-1], srcs)
				if err != nil {
					return false, err
				}
				anyUpdated = anyUpdated || updated
			}
			return anyUpdated, nil

		default:
			panic(fmt.Sprintf("Unexpected path part: %#v", part))
		}
	}
	panic("unreachable")
}

// copyIntoMap is kapp's, reading the value in the source in place and copying it alone (kapp
// copies the whole source object to read it).
func (t linearCopy) copyIntoMap(obj map[string]any, fullPath ctlres.Path, srcs map[ctlres.FieldCopyModSource]ctlres.Resource) (bool, error) {
	lastPartPath := fullPath[len(fullPath)-1]
	if lastPartPath.MapKey == nil {
		return false, fmt.Errorf("Expected last path part to be map-key")
	}
	for _, src := range t.Sources {
		srcRes, found := srcs[src]
		if !found || srcRes == nil {
			continue
		}
		val, found, err := obtainValue(srcRes.UnstructuredObject(), fullPath)
		if err != nil {
			return false, err
		} else if !found {
			continue
		}
		obj[*lastPartPath.MapKey] = runtime.DeepCopyJSONValue(val)
		return true, nil
	}
	return false, nil
}

func obtainValue(obj any, path ctlres.Path) (any, bool, error) {
	for i, part := range path {
		isLast := len(path) == i+1
		switch {
		case part.MapKey != nil:
			typedObj, ok := obj.(map[string]any)
			if !ok && typedObj != nil {
				return nil, false, fmt.Errorf("Unexpected non-map found: %T", obj)
			}
			var found bool
			if obj, found = typedObj[*part.MapKey]; !found {
				return nil, false, nil
			}

		case part.ArrayIndex != nil:
			if isLast {
				return nil, false, fmt.Errorf("Expected last part of the path to be map key")
			}
			switch {
			case part.ArrayIndex.Index != nil:
				typedObj, ok := obj.([]any)
				if !ok {
					return nil, false, fmt.Errorf("Unexpected non-array found: %T", obj)
				}
				if *part.ArrayIndex.Index >= len(typedObj) {
					return nil, false, nil
				}
				obj = typedObj[*part.ArrayIndex.Index]
			default:
				panic(fmt.Sprintf("Unknown array index: %#v", part.ArrayIndex))
			}

		default:
			panic(fmt.Sprintf("Unexpected path part: %#v", part))
		}
	}
	return obj, true, nil
}

func matchRegexWithSrcObj(regexString string, srcObj any) ([]string, error) {
	var matchedKeys []string
	regex, err := regexp.Compile(regexString)
	if err != nil {
		return matchedKeys, err
	}
	srcTypedObj, ok := srcObj.(map[string]any)
	if !ok && srcTypedObj != nil {
		return matchedKeys, fmt.Errorf("Unexpected non-map found: %T", srcObj)
	}
	for key := range srcTypedObj {
		if regex.MatchString(key) {
			matchedKeys = append(matchedKeys, key)
		}
	}
	return matchedKeys, nil
}
