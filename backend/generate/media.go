package generate

import (
	"encoding/base64"
	"errors"
	"os"
	"strings"

	"hearth/backend/media"
	"hearth/backend/providers"
)

// maxImageBytes bounds one image sent to a model (providers refuse larger
// ones anyway); a larger one is named instead.
const maxImageBytes = 8 << 20

var errTooBig = errors.New("image larger than 8 MiB")

// resolveImages turns the images a prompt refers to by Hearth URL
// (media.URLPrefix…) into data: URLs, which is what a provider can fetch.
// http(s) and data: URLs pass as they are. An image that cannot be read
// becomes a line saying so: a reply without the picture beats no reply.
func (s *Service) resolveImages(req *providers.Request) {
	for i := range req.Messages {
		if len(req.Messages[i].Parts) == 0 {
			continue
		}
		// A copy: the prompt's own blocks keep the short URL.
		parts := append([]providers.Part(nil), req.Messages[i].Parts...)
		req.Messages[i].Parts = parts
		for j := range parts {
			u := parts[j].ImageURL
			name, ok := strings.CutPrefix(u, media.URLPrefix)
			if !ok {
				continue
			}
			data, err := s.readMedia(name)
			if err != nil {
				s.log.Warn("image for a prompt", "name", name, "err", err)
				parts[j] = providers.Part{Text: "[System: an attached image could not be read]"}
				continue
			}
			parts[j].ImageURL = "data:" + media.TypeOf(name) + ";base64," + base64.StdEncoding.EncodeToString(data)
		}
	}
}

func (s *Service) readMedia(name string) ([]byte, error) {
	if s.src.Media == nil {
		return nil, os.ErrNotExist
	}
	p, err := s.src.Media.Path(name)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if info.Size() > maxImageBytes {
		return nil, errTooBig
	}
	return os.ReadFile(p)
}
