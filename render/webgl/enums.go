//go:build js && wasm

package webgl

// More WebGL2 enums (the GL values), for the passes beyond the slots.
const (
	glFloat             = 0x1406
	glInt               = 0x1404
	glUnsignedByte      = 0x1401
	glStreamDraw        = 0x88E0
	glStaticDraw        = 0x88E4
	glCullFace          = 0x0B44
	glLess              = 0x0201
	glRG32UI            = 0x823C
	glRGInteger         = 0x8228
	glRGBA32I           = 0x8D82
	glRGBAInteger       = 0x8D99
	glR8                = 0x8229
	glRed               = 0x1903
	glTexWrapS          = 0x2802
	glTexWrapT          = 0x2803
	glClampToEdge       = 0x812F
	glLinear            = 0x2601
	glUnpackAlignment   = 0x0CF5
	glTexCompareFunc    = 0x884D
	glFramebuffer       = 0x8D40
	glDepthAttachment   = 0x8D00
	glDepthComponent24  = 0x81A6
	glFramebufferDone   = 0x8CD5 // FRAMEBUFFER_COMPLETE
	glPolygonOffsetFill = 0x8037
	glNone              = 0
)
