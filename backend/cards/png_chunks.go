package cards

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strings"
)

// pngSignature opens every PNG file.
var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// maxChunkLength is the PNG limit on one chunk's data (2^31-1).
const maxChunkLength = 1<<31 - 1

// Keywords of the text chunks that carry a card. SillyTavern compares them
// without regard to case, so does Hearth.
const (
	keywordV2         = "chara"
	keywordV3         = "ccv3"
	keywordRisuAssets = "chara-ext-asset_"
)

// chunk is one PNG chunk, its slices pointing into the file.
type chunk struct {
	typ  string
	data []byte
	raw  []byte // length, type, data and CRC: what a writer copies
}

// readChunks splits a PNG into its chunks, from IHDR through IEND,
// checking the signature, every length and CRC, and the chunk count.
// Bytes after IEND are ignored, as every PNG reader does.
func readChunks(b []byte, lim limits) ([]chunk, error) {
	if !bytes.HasPrefix(b, pngSignature) {
		return nil, invalid("png_signature", "the file is not a PNG image (its signature is missing)")
	}
	var chunks []chunk
	pos := len(pngSignature)
	for {
		if len(b)-pos < 12 {
			return nil, invalid("png_truncated", "the PNG is truncated: it ends after %d bytes, before its IEND chunk", len(b))
		}
		n := binary.BigEndian.Uint32(b[pos:])
		typ := b[pos+4 : pos+8]
		if !isChunkType(typ) {
			return nil, invalid("png_chunk", "the PNG has a malformed chunk type %q at byte %d", typ, pos+4)
		}
		if n > maxChunkLength {
			return nil, invalid("png_chunk", "the PNG's %s chunk at byte %d claims %d bytes, more than PNG allows", typ, pos, n)
		}
		if uint64(n) > uint64(len(b)-pos-12) {
			return nil, invalid("png_truncated", "the PNG is truncated: its %s chunk at byte %d claims %d bytes but %d remain", typ, pos, n, len(b)-pos-12)
		}
		end := pos + 12 + int(n)
		c := chunk{typ: string(typ), data: b[pos+8 : end-4], raw: b[pos:end]}
		if got, want := crc32.ChecksumIEEE(b[pos+4:end-4]), binary.BigEndian.Uint32(b[end-4:]); got != want {
			return nil, invalid("png_crc", "the PNG's %s chunk at byte %d is corrupt (CRC %08x, expected %08x)", typ, pos, want, got)
		}
		if len(chunks) == 0 && c.typ != "IHDR" {
			return nil, invalid("png_chunk", "the PNG does not start with an IHDR chunk")
		}
		if len(chunks) >= lim.pngChunks {
			e := invalid("too_many_chunks", "the PNG has more than %d chunks", lim.pngChunks)
			e.Details["maxChunks"] = lim.pngChunks
			return nil, e
		}
		chunks = append(chunks, c)
		pos = end
		if c.typ == "IEND" {
			return chunks, nil
		}
	}
}

// isChunkType reports whether t is four ASCII letters, as PNG requires.
func isChunkType(t []byte) bool {
	for _, c := range t {
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

// textChunk splits a tEXt chunk into its keyword and text; ok is false for
// other chunks and for a tEXt without the NUL that ends its keyword.
func textChunk(c chunk) (keyword string, text []byte, ok bool) {
	if c.typ != "tEXt" {
		return "", nil, false
	}
	i := bytes.IndexByte(c.data, 0)
	if i < 0 {
		return "", nil, false
	}
	return string(c.data[:i]), c.data[i+1:], true
}

// isCardChunk reports whether c carries card data: the `chara` and `ccv3`
// chunks and RisuAI's asset chunks, all of which an export replaces.
func isCardChunk(c chunk) bool {
	kw, _, ok := textChunk(c)
	if !ok {
		return false
	}
	kw = strings.ToLower(kw)
	return kw == keywordV2 || kw == keywordV3 || strings.HasPrefix(kw, keywordRisuAssets)
}

// appendChunk appends a chunk of type typ holding data, with its CRC.
func appendChunk(dst []byte, typ string, data ...[]byte) []byte {
	n := 0
	for _, d := range data {
		n += len(d)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(n))
	start := len(dst)
	dst = append(dst, typ...)
	for _, d := range data {
		dst = append(dst, d...)
	}
	return binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(dst[start:]))
}

// writePNG writes chunks without their card chunks, with extra inserted
// before IEND (chunks must end with IEND, as readChunks returns them).
func writePNG(chunks []chunk, extra ...[]byte) []byte {
	size := len(pngSignature)
	for _, c := range chunks {
		size += len(c.raw)
	}
	for _, e := range extra {
		size += len(e)
	}
	out := make([]byte, 0, size)
	out = append(out, pngSignature...)
	for _, c := range chunks {
		if c.typ == "IEND" {
			for _, e := range extra {
				out = append(out, e...)
			}
		}
		if !isCardChunk(c) {
			out = append(out, c.raw...)
		}
	}
	return out
}
