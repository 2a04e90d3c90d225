//! A generated test surface: a bumpy height field of `n` x `n` quads (2n² triangles) over
//! the unit square in XZ, Y up, with analytic normals and UVs. Smooth but not flat, so
//! every level of simplification has error to account for; open along its four edges.

/// Positions, normals and UVs (the pipeline's 4-float streams) and triangle indices.
pub struct Field {
    pub positions: Vec<[f32; 4]>,
    pub normals: Vec<[f32; 4]>,
    pub uvs: Vec<[f32; 4]>,
    pub indices: Vec<u32>,
}

const AMPLITUDE: f32 = 0.04;
const WAVES: f32 = 9.0;

fn height(x: f32, z: f32) -> f32 {
    AMPLITUDE
        * ((x * WAVES).sin() * (z * WAVES * 0.7).cos() + 0.5 * (x * WAVES * 2.3 + z * 3.1).sin())
}

pub fn bumpy_field(n: usize) -> Field {
    let row = n + 1;
    let mut f = Field {
        positions: Vec::with_capacity(row * row),
        normals: Vec::with_capacity(row * row),
        uvs: Vec::with_capacity(row * row),
        indices: Vec::with_capacity(n * n * 6),
    };
    let h = 1e-3f32;
    for j in 0..row {
        for i in 0..row {
            let (x, z) = (i as f32 / n as f32, j as f32 / n as f32);
            let y = height(x, z);
            // Normal of the surface y = h(x, z): (-dh/dx, 1, -dh/dz), by central differences.
            let dx = (height(x + h, z) - height(x - h, z)) / (2.0 * h);
            let dz = (height(x, z + h) - height(x, z - h)) / (2.0 * h);
            let len = (dx * dx + 1.0 + dz * dz).sqrt();
            f.positions.push([x, y, z, 0.0]);
            f.normals.push([-dx / len, 1.0 / len, -dz / len, 0.0]);
            f.uvs.push([x, z, 0.0, 0.0]);
        }
    }
    for j in 0..n {
        for i in 0..n {
            let a = (j * row + i) as u32;
            let (b, c, d) = (a + 1, a + row as u32, a + row as u32 + 1);
            // Counter-clockwise seen from +Y.
            f.indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    f
}
