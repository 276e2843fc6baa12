package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// jsonObject copies an unstructured object's content into the values apimachinery's JSON
// decoder gives (int64, float64, string, bool, nil, []any, map[string]any): what the API
// server would read if the object were sent to it. A value with no JSON form is an error
// naming its field.
func jsonObject(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	v, err := jsonValue(m, "")
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

func jsonValue(v any, path string) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, int64:
		return x, nil
	case int:
		return int64(x), nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint:
		return uintValue(uint64(x), path)
	case uint64:
		return uintValue(x, path)
	case float32:
		return floatValue(float64(x), path)
	case float64:
		return floatValue(x, path)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := jsonValue(e, childPath(path, k))
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := jsonValue(e, path+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	// other Go values ([]string, map[string]string, structs) as encoding/json writes them
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("field %s: a %T has no JSON value: %w", fieldName(path), v, err)
	}
	var out any
	if err := utiljson.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("field %s: %w", fieldName(path), err)
	}
	return out, nil
}

func uintValue(u uint64, path string) (any, error) {
	if u > math.MaxInt64 {
		return nil, fmt.Errorf("field %s: %d is larger than the API server's integers (int64)", fieldName(path), u)
	}
	return int64(u), nil
}

func floatValue(f float64, path string) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("field %s: %v is not a JSON number", fieldName(path), f)
	}
	return f, nil
}

func childPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func fieldName(path string) string {
	if path == "" {
		return "(the object)"
	}
	return path
}
