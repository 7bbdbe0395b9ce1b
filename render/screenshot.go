package render

import (
	"fmt"
	"image"
	"image/png"
	"os"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// Screenshot reads back the window's default framebuffer (the frame just
// drawn: call it after Draw and before Present) as an RGBA image, top row
// first.
func (r *Renderer) Screenshot() (*image.RGBA, error) {
	w, h := r.win.GetFramebufferSize()
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("render: screenshot of an empty %dx%d framebuffer", w, h)
	}
	buf := make([]byte, w*h*4)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, 0)
	gl.ReadBuffer(gl.BACK)
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.ReadPixels(0, 0, int32(w), int32(h), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(buf))
	if err := glError("screenshot"); err != nil {
		return nil, err
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	row := w * 4
	for y := 0; y < h; y++ { // GL's rows run bottom-up
		copy(img.Pix[y*img.Stride:y*img.Stride+row], buf[(h-1-y)*row:(h-y)*row])
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	return img, nil
}

// SaveScreenshot writes Screenshot as a PNG file.
func (r *Renderer) SaveScreenshot(path string) error {
	img, err := r.Screenshot()
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("render: screenshot: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("render: screenshot %s: %w", path, err)
	}
	return f.Close()
}
