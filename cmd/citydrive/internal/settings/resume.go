package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// ResumeFileName is the resume file's name, beside the settings.
const ResumeFileName = "resume.json"

// Solo is the server name of solo play in the resume file.
const Solo = "solo"

// maxPlaces bounds the places kept; the least recently saved go first.
const maxPlaces = 64

// Place is where a drive was left in one world: the car's position and
// heading and the camera, for one seed on one server.
type Place struct {
	Server  string    `json:"server"` // Solo, or the address joined
	Seed    uint64    `json:"seed"`
	X       float64   `json:"x"` // metres
	Z       float64   `json:"z"`
	Heading float64   `json:"heading"` // radians, car.HeadingOf's convention
	Camera  string    `json:"camera"`  // Chase or Top
	Saved   time.Time `json:"saved"`
}

// Resume is the places the player left, one per server and seed.
type Resume struct {
	Places []Place `json:"places"`
}

// resumeVersion is the resume file's format.
const resumeVersion = 1

type resumeFile struct {
	Version int     `json:"version"`
	Places  []Place `json:"places"`
}

// LoadResume reads the resume file at path; a missing one is empty. An
// error names the file and the place at fault: the caller should start
// without it and not write over it (the places are lost otherwise).
func LoadResume(path string) (Resume, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Resume{}, nil
	}
	if err != nil {
		return Resume{}, fmt.Errorf("resume: %w", err)
	}
	var f resumeFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Resume{}, fmt.Errorf("resume %s: %w", path, jsonError(data, err))
	}
	if f.Version != resumeVersion {
		return Resume{}, fmt.Errorf("resume %s: format %d, this citydrive reads %d", path, f.Version, resumeVersion)
	}
	for i, p := range f.Places {
		if err := p.check(); err != nil {
			return Resume{}, fmt.Errorf("resume %s: place %d (%s, seed %d): %w", path, i+1, p.Server, p.Seed, err)
		}
	}
	return Resume{Places: f.Places}, nil
}

// maxCoord: as -start's range.
const maxCoord = 1e9

func (p *Place) check() error {
	switch {
	case p.Server == "":
		return errors.New(`"server" is empty`)
	case math.IsNaN(p.X) || math.IsNaN(p.Z) || math.Abs(p.X) > maxCoord || math.Abs(p.Z) > maxCoord:
		return fmt.Errorf(`"x", "z": %g, %g out of range (|x|, |z| ≤ %g m)`, p.X, p.Z, float64(maxCoord))
	case math.IsNaN(p.Heading) || math.IsInf(p.Heading, 0):
		return fmt.Errorf(`"heading": %g is not an angle`, p.Heading)
	case p.Camera != Chase && p.Camera != Top:
		return fmt.Errorf(`"camera": %q is not one of %s`, p.Camera, quoteList([]string{Chase, Top}))
	}
	return nil
}

// Find returns the place left on server in world seed.
func (r *Resume) Find(server string, seed uint64) (Place, bool) {
	for _, p := range r.Places {
		if p.Server == server && p.Seed == seed {
			return p, true
		}
	}
	return Place{}, false
}

// Put records p (replacing the place of its server and seed), most
// recent first, dropping the oldest past maxPlaces.
func (r *Resume) Put(p Place) {
	r.Places = slices.DeleteFunc(r.Places, func(q Place) bool { return q.Server == p.Server && q.Seed == p.Seed })
	r.Places = append([]Place{p}, r.Places...)
	if len(r.Places) > maxPlaces {
		r.Places = r.Places[:maxPlaces]
	}
}

// SaveResume writes r to path (made atomically, as Save).
func SaveResume(path string, r Resume) error {
	for i := range r.Places {
		if err := r.Places[i].check(); err != nil {
			return fmt.Errorf("resume: place %d: %w", i+1, err)
		}
	}
	data, err := json.MarshalIndent(resumeFile{Version: resumeVersion, Places: r.Places}, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(data, '\n'))
}

// ResumePath is the resume file beside the settings file at settingsPath.
func ResumePath(settingsPath string) string {
	return filepath.Join(filepath.Dir(settingsPath), ResumeFileName)
}
