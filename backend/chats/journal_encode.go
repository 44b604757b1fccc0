package chats

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/wI2L/jsondiff"
)

// encodePatch writes ops as the journal stores them: the JSON json.Marshal
// writes for a jsondiff.Patch, HTML characters escaped alike. A whole
// message an add or a remove carries is this program's own compact
// encoding, so it is copied (escaping those characters) instead of being
// validated and compacted twice more, which was a fifth of an add's time.
func encodePatch(ops jsondiff.Patch) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, op := range ops {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		switch op.Type {
		case jsondiff.OperationAdd, jsondiff.OperationReplace, jsondiff.OperationTest:
			b.WriteString(`"value":`)
			if err := writeValue(&b, op.Value); err != nil {
				return nil, fmt.Errorf("op %d: %w", i, err)
			}
			b.WriteByte(',')
		}
		b.WriteString(`"op":`)
		writeJSONString(&b, op.Type)
		if op.Type == jsondiff.OperationMove || op.Type == jsondiff.OperationCopy {
			b.WriteString(`,"from":`)
			writeJSONString(&b, op.From)
		}
		b.WriteString(`,"path":`)
		writeJSONString(&b, op.Path)
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

func writeValue(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case json.RawMessage:
		if len(v) == 0 {
			b.WriteString("null")
			return nil
		}
		json.HTMLEscape(b, v)
	default:
		out, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(out)
	}
	return nil
}
