//! [`Mlp`]: a small fully connected network with ReLU hidden layers, and its
//! allocation-free forward pass.

/// One fully connected layer. Weights are stored **input-major**
/// (`weights[i * outputs + o]` is the weight from input `i` to output `o`),
/// so the forward pass skips inputs that are zero — most of an observation
/// tensor, and about half of a ReLU layer's outputs — and adds one
/// contiguous row per non-zero input.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    /// Number of inputs.
    pub inputs: usize,
    /// Number of outputs.
    pub outputs: usize,
    /// `inputs × outputs` weights, input-major.
    pub weights: Vec<f32>,
    /// `outputs` biases.
    pub bias: Vec<f32>,
}

impl Layer {
    /// A layer of zeros.
    pub fn zeros(inputs: usize, outputs: usize) -> Self {
        Layer { inputs, outputs, weights: vec![0.0; inputs * outputs], bias: vec![0.0; outputs] }
    }

    /// `out = bias + inputᵀ·W` (no activation). `input.len()` must be
    /// `inputs` and `out.len()` `outputs` (checked by the callers).
    #[inline]
    pub fn forward(&self, input: &[f32], out: &mut [f32]) {
        out.copy_from_slice(&self.bias);
        for (i, &x) in input.iter().enumerate() {
            if x == 0.0 {
                continue;
            }
            let row = &self.weights[i * self.outputs..(i + 1) * self.outputs];
            for (o, &w) in out.iter_mut().zip(row) {
                *o += x * w;
            }
        }
    }
}

/// A multilayer perceptron: linear layers with ReLU between them and none
/// after the last. `sizes()` lists the widths, input first.
///
/// ```
/// use boardgame_kit::nn::{Layer, Mlp, MlpScratch};
///
/// let mut first = Layer::zeros(2, 2);
/// first.weights = vec![1.0, -1.0, 1.0, 1.0]; // input 0 → (1, -1), input 1 → (1, 1)
/// let mut last = Layer::zeros(2, 1);
/// last.weights = vec![1.0, 2.0];
/// last.bias = vec![0.5];
/// let mlp = Mlp::new(vec![first, last]).unwrap();
/// let mut scratch = MlpScratch::for_mlp(&mlp);
/// let mut out = [0.0];
/// mlp.forward(&[1.0, 2.0], &mut scratch, &mut out).unwrap();
/// // hidden = relu(3, 1) = (3, 1); out = 0.5 + 3·1 + 1·2
/// assert_eq!(out, [5.5]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Mlp {
    layers: Vec<Layer>,
}

/// A size mismatch in the construction or the forward pass of a network's
/// body: an [`Mlp`], a [`Graph`](super::Graph) (a [`Tower`](super::Tower)
/// builds one).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetError {
    /// The network has no layer.
    #[error("a network needs at least one layer")]
    Empty,
    /// A layer's inputs differ from the previous layer's outputs, or its
    /// parameter vectors have the wrong lengths.
    #[error("layer {layer}: {what}")]
    Shape {
        /// The layer's index, from 0.
        layer: usize,
        /// What is wrong.
        what: String,
    },
    /// A buffer of the wrong length was passed to a forward pass.
    #[error("{what} has length {found}, the network needs {expected}")]
    Buffer {
        /// Which buffer.
        what: &'static str,
        /// Its length.
        found: usize,
        /// The length the network needs.
        expected: usize,
    },
}

impl Mlp {
    /// A network of `layers`, checked: each layer's inputs are the previous
    /// one's outputs and its vectors have their lengths.
    ///
    /// # Errors
    /// [`NetError::Empty`], [`NetError::Shape`].
    pub fn new(layers: Vec<Layer>) -> Result<Self, NetError> {
        if layers.is_empty() {
            return Err(NetError::Empty);
        }
        for (k, l) in layers.iter().enumerate() {
            let bad = |what: String| Err(NetError::Shape { layer: k, what });
            if l.inputs == 0 || l.outputs == 0 {
                return bad("a layer needs at least one input and one output".into());
            }
            if l.weights.len() != l.inputs * l.outputs {
                return bad(format!("{} weights for {}×{}", l.weights.len(), l.inputs, l.outputs));
            }
            if l.bias.len() != l.outputs {
                return bad(format!("{} biases for {} outputs", l.bias.len(), l.outputs));
            }
            if k > 0 && layers[k - 1].outputs != l.inputs {
                return bad(format!("{} inputs after a layer of {} outputs", l.inputs, layers[k - 1].outputs));
            }
        }
        Ok(Mlp { layers })
    }

    /// The layers, input first.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Mutable layers, for a trainer (the shapes must stay as they are).
    pub fn layers_mut(&mut self) -> &mut [Layer] {
        &mut self.layers
    }

    /// The widths: inputs, then every layer's outputs.
    pub fn sizes(&self) -> Vec<usize> {
        std::iter::once(self.inputs()).chain(self.layers.iter().map(|l| l.outputs)).collect()
    }

    /// The number of inputs.
    pub fn inputs(&self) -> usize {
        self.layers[0].inputs
    }

    /// The number of outputs.
    pub fn outputs(&self) -> usize {
        self.layers[self.layers.len() - 1].outputs
    }

    /// The number of parameters (weights and biases).
    pub fn num_parameters(&self) -> usize {
        self.layers.iter().map(|l| l.weights.len() + l.bias.len()).sum()
    }

    /// The widest hidden layer (0 for a single layer).
    pub fn widest_hidden(&self) -> usize {
        self.layers[..self.layers.len() - 1].iter().map(|l| l.outputs).max().unwrap_or(0)
    }

    /// Writes the network's outputs for `input` into `out`, through the
    /// buffers of `scratch` ([`MlpScratch::for_mlp`]): nothing is allocated.
    ///
    /// # Errors
    /// [`NetError::Buffer`] when `input`, `out` or `scratch` do not fit the
    /// network.
    pub fn forward(&self, input: &[f32], scratch: &mut MlpScratch, out: &mut [f32]) -> Result<(), NetError> {
        let check = |what, found, expected| {
            if found == expected { Ok(()) } else { Err(NetError::Buffer { what, found, expected }) }
        };
        check("the input", input.len(), self.inputs())?;
        check("the output", out.len(), self.outputs())?;
        let hidden = self.widest_hidden();
        if scratch.a.len() < hidden || scratch.b.len() < hidden {
            return Err(NetError::Buffer {
                what: "the scratch",
                found: scratch.a.len().min(scratch.b.len()),
                expected: hidden,
            });
        }
        let last = self.layers.len() - 1;
        let (mut cur, mut next) = (&mut scratch.a, &mut scratch.b);
        for (k, layer) in self.layers.iter().enumerate() {
            if k == last {
                let src: &[f32] = if k == 0 { input } else { &cur[..layer.inputs] };
                layer.forward(src, out);
            } else {
                let dst = &mut next[..layer.outputs];
                if k == 0 {
                    layer.forward(input, dst);
                } else {
                    layer.forward(&cur[..layer.inputs], dst);
                }
                dst.iter_mut().for_each(|v| *v = v.max(0.0));
                std::mem::swap(&mut cur, &mut next);
            }
        }
        Ok(())
    }
}

/// The buffers of [`Mlp::forward`]'s hidden layers, made once and reused for
/// every call.
#[derive(Clone, Debug, Default)]
pub struct MlpScratch {
    a: Vec<f32>,
    b: Vec<f32>,
}

impl MlpScratch {
    /// Buffers that fit `mlp`.
    pub fn for_mlp(mlp: &Mlp) -> Self {
        let n = mlp.widest_hidden();
        MlpScratch { a: vec![0.0; n], b: vec![0.0; n] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(inputs: usize, outputs: usize, seed: f32) -> Layer {
        let mut l = Layer::zeros(inputs, outputs);
        for (k, w) in l.weights.iter_mut().enumerate() {
            *w = ((k as f32 * 0.37 + seed).sin()) * 0.5;
        }
        for (k, b) in l.bias.iter_mut().enumerate() {
            *b = ((k as f32 * 0.11 - seed).cos()) * 0.1;
        }
        l
    }

    /// The forward pass against a plain dense computation (weights read
    /// output-major), zero inputs included.
    #[test]
    fn forward_matches_a_dense_reference() {
        let mlp = Mlp::new(vec![layer(7, 5, 0.3), layer(5, 4, 1.1), layer(4, 3, 2.0)]).unwrap();
        let input = [0.0, 1.0, -0.5, 0.0, 2.0, 0.25, 0.0];
        let mut scratch = MlpScratch::for_mlp(&mlp);
        let mut out = [0.0; 3];
        mlp.forward(&input, &mut scratch, &mut out).unwrap();
        let mut x: Vec<f32> = input.to_vec();
        for (k, l) in mlp.layers().iter().enumerate() {
            let mut y: Vec<f32> = (0..l.outputs)
                .map(|o| l.bias[o] + (0..l.inputs).map(|i| x[i] * l.weights[i * l.outputs + o]).sum::<f32>())
                .collect();
            if k + 1 < mlp.layers().len() {
                y.iter_mut().for_each(|v| *v = v.max(0.0));
            }
            x = y;
        }
        for (a, b) in out.iter().zip(&x) {
            assert!((a - b).abs() < 1e-5, "{out:?} vs {x:?}");
        }
        assert_eq!(mlp.sizes(), vec![7, 5, 4, 3]);
        assert_eq!(mlp.num_parameters(), 7 * 5 + 5 + 5 * 4 + 4 + 4 * 3 + 3);
    }

    #[test]
    fn shapes_and_buffers_are_checked() {
        assert_eq!(Mlp::new(vec![]), Err(NetError::Empty));
        let err = Mlp::new(vec![layer(3, 4, 0.0), layer(5, 2, 0.0)]).unwrap_err();
        assert!(err.to_string().contains("5 inputs after a layer of 4 outputs"), "{err}");
        let mut bad = layer(3, 4, 0.0);
        bad.bias.pop();
        assert!(Mlp::new(vec![bad]).unwrap_err().to_string().contains("3 biases for 4 outputs"));
        let mlp = Mlp::new(vec![layer(3, 4, 0.0), layer(4, 2, 0.0)]).unwrap();
        let mut s = MlpScratch::for_mlp(&mlp);
        let err = mlp.forward(&[0.0; 2], &mut s, &mut [0.0; 2]).unwrap_err();
        assert_eq!(err, NetError::Buffer { what: "the input", found: 2, expected: 3 });
        assert!(mlp.forward(&[0.0; 3], &mut s, &mut [0.0; 3]).is_err());
        assert!(mlp.forward(&[0.0; 3], &mut MlpScratch::default(), &mut [0.0; 2]).is_err());
        assert!(mlp.forward(&[0.0; 3], &mut s, &mut [0.0; 2]).is_ok());
    }
}
