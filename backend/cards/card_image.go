package cards

import (
	"bytes"
	"image"
	_ "image/gif" // a GIF avatar is converted to PNG for a PNG card
	_ "image/jpeg"
	"image/png"
	"net/http"

	"hearth/backend/apperr"
)

// avatarChunks returns the chunks of the PNG a card is written into:
// image itself when it is a PNG, image converted when it is a JPEG or GIF,
// the default avatar drawn for name when it is empty.
func avatarChunks(img []byte, name string) ([]chunk, error) {
	if len(img) > MaxFileBytes {
		return nil, imageUnsupported("too_large", "the avatar is %d bytes; at most %d are allowed", len(img), MaxFileBytes)
	}
	var pngBytes []byte
	switch kind := http.DetectContentType(img); {
	case len(img) == 0:
		pngBytes = DefaultAvatar(name)
	case kind == "image/png":
		pngBytes = img
	case kind == "image/jpeg" || kind == "image/gif":
		converted, err := toPNG(img, MaxImagePixels)
		if err != nil {
			return nil, err
		}
		pngBytes = converted
	default:
		return nil, imageUnsupported("format", "the avatar is %s; a PNG card can carry a PNG, JPEG or GIF image only (export the card as JSON instead)", kind)
	}
	chunks, err := readChunks(pngBytes, defaultLimits)
	if err != nil {
		reason := "corrupt"
		if e := apperr.As(err); e != nil {
			reason, _ = e.Details["reason"].(string)
		}
		return nil, imageUnsupported(reason, "the avatar is not a usable PNG: %s", errMessage(err))
	}
	return chunks, nil
}

// toPNG converts a JPEG or GIF (its first frame) to PNG, refusing images
// of more than maxPixels before decoding them.
func toPNG(img []byte, maxPixels int) ([]byte, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		return nil, imageUnsupported("corrupt", "the avatar image cannot be read: %v", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxPixels/max(cfg.Height, 1) {
		return nil, imageUnsupported("too_large", "the avatar is %d×%d pixels; at most %d pixels are allowed", cfg.Width, cfg.Height, maxPixels)
	}
	decoded, _, err := image.Decode(bytes.NewReader(img))
	if err != nil {
		return nil, imageUnsupported("corrupt", "the avatar image cannot be read: %v", err)
	}
	var out bytes.Buffer
	if err := png.Encode(&out, decoded); err != nil {
		return nil, imageUnsupported("corrupt", "the avatar cannot be written as PNG: %v", err)
	}
	return out.Bytes(), nil
}
