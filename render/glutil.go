package render

import (
	"fmt"
	"strings"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
)

// program is a linked shader program with a uniform-location cache.
type program struct {
	id   uint32
	name string
	locs map[string]int32
}

func compileShader(kind uint32, src string) (uint32, error) {
	s := gl.CreateShader(kind)
	csrc, free := gl.Strs(src + "\x00")
	gl.ShaderSource(s, 1, csrc, nil)
	free()
	gl.CompileShader(s)
	var ok int32
	gl.GetShaderiv(s, gl.COMPILE_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetShaderiv(s, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n+1))
		gl.GetShaderInfoLog(s, n, nil, gl.Str(log))
		gl.DeleteShader(s)
		return 0, fmt.Errorf("compile: %s", strings.TrimRight(log, "\x00"))
	}
	return s, nil
}

func newProgram(name, vert, frag string) (*program, error) {
	vs, err := compileShader(gl.VERTEX_SHADER, vert)
	if err != nil {
		return nil, fmt.Errorf("%s vertex shader: %w", name, err)
	}
	fs, err := compileShader(gl.FRAGMENT_SHADER, frag)
	if err != nil {
		gl.DeleteShader(vs)
		return nil, fmt.Errorf("%s fragment shader: %w", name, err)
	}
	p := gl.CreateProgram()
	gl.AttachShader(p, vs)
	gl.AttachShader(p, fs)
	gl.LinkProgram(p)
	gl.DeleteShader(vs)
	gl.DeleteShader(fs)
	var ok int32
	gl.GetProgramiv(p, gl.LINK_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetProgramiv(p, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n+1))
		gl.GetProgramInfoLog(p, n, nil, gl.Str(log))
		gl.DeleteProgram(p)
		return nil, fmt.Errorf("%s link: %s", name, strings.TrimRight(log, "\x00"))
	}
	return &program{id: p, name: name, locs: map[string]int32{}}, nil
}

func (p *program) use() { gl.UseProgram(p.id) }

func (p *program) loc(name string) int32 {
	if l, ok := p.locs[name]; ok {
		return l
	}
	l := gl.GetUniformLocation(p.id, gl.Str(name+"\x00"))
	p.locs[name] = l
	return l
}

func (p *program) setMat4(name string, m mgl32.Mat4) {
	gl.UniformMatrix4fv(p.loc(name), 1, false, &m[0])
}
func (p *program) setVec3(name string, v mgl32.Vec3) { gl.Uniform3f(p.loc(name), v[0], v[1], v[2]) }
func (p *program) setVec4(name string, v mgl32.Vec4) {
	gl.Uniform4f(p.loc(name), v[0], v[1], v[2], v[3])
}
func (p *program) setFloat(name string, v float32) { gl.Uniform1f(p.loc(name), v) }
func (p *program) setInt(name string, v int32)     { gl.Uniform1i(p.loc(name), v) }

func (p *program) delete() {
	if p != nil && p.id != 0 {
		gl.DeleteProgram(p.id)
		p.id = 0
	}
}

// glError returns the first pending GL error, if any, naming where.
func glError(where string) error {
	if e := gl.GetError(); e != gl.NO_ERROR {
		// Drain the rest so the next check starts clean.
		for i := 0; i < 16 && gl.GetError() != gl.NO_ERROR; i++ {
		}
		return fmt.Errorf("render: GL error 0x%04x in %s", e, where)
	}
	return nil
}

// meshVAO makes and binds a vertex array over a new static buffer holding
// mesh: position (3 floats), normal (3) and a part tag (1) per vertex, at
// locations 0, 1 and 2, the layout of the tree and vehicle meshes.
func meshVAO(mesh []float32, floatsPerVertex int) (vao, vbo uint32) {
	gl.GenVertexArrays(1, &vao)
	gl.BindVertexArray(vao)
	gl.GenBuffers(1, &vbo)
	gl.BindBuffer(gl.ARRAY_BUFFER, vbo)
	gl.BufferData(gl.ARRAY_BUFFER, len(mesh)*4, gl.Ptr(mesh), gl.STATIC_DRAW)
	stride := int32(floatsPerVertex * 4)
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 3, gl.FLOAT, false, stride, 0)
	gl.EnableVertexAttribArray(1)
	gl.VertexAttribPointerWithOffset(1, 3, gl.FLOAT, false, stride, 12)
	gl.EnableVertexAttribArray(2)
	gl.VertexAttribPointerWithOffset(2, 1, gl.FLOAT, false, stride, 24)
	return vao, vbo
}
