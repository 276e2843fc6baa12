//go:build tools

package tools

import _ "carvel.dev/vendir/cmd/vendir"
