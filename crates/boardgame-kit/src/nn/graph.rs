//! [`Graph`]: a network as a short sequential program of typed layers over
//! one flat input — dense layers, 1×1 and 3×3 convolutions over board
//! planes, ReLU, residual adds, global pooling, concatenation — and its
//! allocation-free forward pass.
//!
//! The program works on one current activation `x` (a flat `f32` vector)
//! and [`MAX_SLOTS`] saved ones. Board planes are laid out **HWC**
//! (position-major, channels innermost) inside the program, so that a
//! convolution adds one contiguous row of output channels per non-zero
//! input; [`Op::ToHwc`] and [`Op::ToChw`] convert from and to the
//! plane-major (CHW) layout of the observation tensors and of a policy
//! head indexed `channel * positions + square`.
//!
//! ```
//! use boardgame_kit::nn::{Graph, GraphScratch, Layer, Op};
//!
//! // out = input[0] + input[1], through a dense layer, then ReLU.
//! let mut sum = Layer::zeros(2, 1);
//! sum.weights = vec![1.0, 1.0];
//! let g = Graph::new(2, 1, vec![Op::Input { start: 0, len: 2 }, Op::Dense(sum), Op::Relu, Op::Output { offset: 0 }])
//!     .unwrap();
//! let mut scratch = GraphScratch::for_graph(&g);
//! let mut out = [0.0];
//! g.forward(&[2.0, -0.5], &mut scratch, &mut out).unwrap();
//! assert_eq!(out, [1.5]);
//! ```

use super::mlp::{Layer, Mlp, NetError};

/// The number of saved activations ([`Op::Store`] and friends).
pub const MAX_SLOTS: usize = 4;
/// The most operations a graph may hold.
pub const MAX_OPS: usize = 128;
/// The longest activation a graph may produce (a hostile file cannot make
/// the scratch buffers larger than this many `f32`).
pub const MAX_ACTIVATION: usize = 1 << 20;

/// A convolution over `height × width` positions with `kernel × kernel`
/// taps (1 or 3), zero padding `kernel / 2` (the output has the input's
/// positions), stride 1, on HWC activations. A batch norm of the trained
/// network is folded into its weights and biases at export.
#[derive(Clone, Debug, PartialEq)]
pub struct Conv {
    /// 1 or 3.
    pub kernel: usize,
    /// Input channels.
    pub inputs: usize,
    /// Output channels.
    pub outputs: usize,
    /// Rows of the board.
    pub height: usize,
    /// Columns of the board.
    pub width: usize,
    /// `kernel · kernel · inputs · outputs` weights, ordered
    /// `[ky][kx][input][output]` (PyTorch's `weight[o][i][ky][kx]` permuted
    /// to `(2, 3, 1, 0)`): the tap at `(ky, kx)` reads the input at
    /// `(y + ky − kernel/2, x + kx − kernel/2)`.
    pub weights: Vec<f32>,
    /// `outputs` biases.
    pub bias: Vec<f32>,
}

impl Conv {
    /// A convolution of zeros.
    pub fn zeros(kernel: usize, inputs: usize, outputs: usize, height: usize, width: usize) -> Self {
        Conv {
            kernel,
            inputs,
            outputs,
            height,
            width,
            weights: vec![0.0; kernel * kernel * inputs * outputs],
            bias: vec![0.0; outputs],
        }
    }

    /// `y = conv(x)`, HWC; `x.len()` is `positions · inputs`, `y.len()`
    /// `positions · outputs` (checked by the callers). Zero inputs are
    /// skipped. Each output position gathers its taps into a block of
    /// accumulators that the compiler keeps in registers (blocks of 32
    /// output channels, then 16, 8 and single ones for the rest), so an
    /// output row is written once, not once per input.
    fn forward(&self, x: &[f32], y: &mut [f32]) {
        let co = self.outputs;
        let (b32, b16, b8) = (co / 32 * 32, co / 16 * 16, co / 8 * 8);
        self.gather::<32>(x, y, 0, b32);
        self.gather::<16>(x, y, b32, b16.max(b32));
        self.gather::<8>(x, y, b16.max(b32), b8.max(b32));
        self.gather::<1>(x, y, b8.max(b32), co);
    }

    /// Output channels `from..to` (a multiple of `B` apart) of every position.
    fn gather<const B: usize>(&self, x: &[f32], y: &mut [f32], from: usize, to: usize) {
        let (ci, co, h, w, k) = (self.inputs, self.outputs, self.height, self.width, self.kernel);
        let r = k / 2;
        if from >= to {
            return;
        }
        for py in 0..h {
            for px in 0..w {
                let p = py * w + px;
                for b in (from..to).step_by(B) {
                    let mut acc = [0.0f32; B];
                    acc.copy_from_slice(&self.bias[b..b + B]);
                    for ky in 0..k {
                        // the tap at ky reads input row py + ky - r
                        let Some(qy) = (py + ky).checked_sub(r).filter(|&qy| qy < h) else { continue };
                        for kx in 0..k {
                            let Some(qx) = (px + kx).checked_sub(r).filter(|&qx| qx < w) else { continue };
                            let q = qy * w + qx;
                            let taps = &self.weights[(ky * k + kx) * ci * co..(ky * k + kx + 1) * ci * co];
                            for (i, &v) in x[q * ci..(q + 1) * ci].iter().enumerate() {
                                if v == 0.0 {
                                    continue;
                                }
                                let Ok(row) = <&[f32; B]>::try_from(&taps[i * co + b..i * co + b + B]) else {
                                    continue;
                                };
                                for (a, &wt) in acc.iter_mut().zip(row) {
                                    *a += v * wt;
                                }
                            }
                        }
                    }
                    y[p * co + b..p * co + b + B].copy_from_slice(&acc);
                }
            }
        }
    }
}

/// One operation of a [`Graph`] (the kinds of the weights file's format
/// version 2, numbered as in the file).
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// (1) `x = input[start..start + len]`.
    Input {
        /// First entry of the network's input.
        start: usize,
        /// Entries.
        len: usize,
    },
    /// (2) `x = x ++ input[start..start + len]` (for planes in CHW layout,
    /// a concatenation of channels).
    ConcatInput {
        /// First entry of the network's input.
        start: usize,
        /// Entries.
        len: usize,
    },
    /// (3) `x`, `channels × height × width` planes (CHW), to HWC.
    ToHwc {
        /// Channels.
        channels: usize,
        /// Rows.
        height: usize,
        /// Columns.
        width: usize,
    },
    /// (4) `x`, HWC, to CHW (entry `channel · height · width + square`).
    ToChw {
        /// Channels.
        channels: usize,
        /// Rows.
        height: usize,
        /// Columns.
        width: usize,
    },
    /// (5) `x = conv(x)` ([`Conv`]), HWC in and out.
    Conv(Conv),
    /// (6) `x = bias + xᵀ·W` ([`Layer`], input-major weights).
    Dense(Layer),
    /// (7) `x = max(x, 0)`.
    Relu,
    /// (8) `slot = x`.
    Store(usize),
    /// (9) `x = slot`.
    Load(usize),
    /// (10) `x += slot` (a residual connection; same length).
    Add(usize),
    /// (11) `x = x ++ slot`.
    Concat(usize),
    /// (12) `x`, HWC with `positions × channels`, to its `channels` means
    /// over the positions.
    GlobalAvgPool {
        /// Channels.
        channels: usize,
        /// Positions (height · width).
        positions: usize,
    },
    /// (13) `out[offset..offset + x.len()] = x`; every output of the graph
    /// is written by exactly one `Output`.
    Output {
        /// First output written.
        offset: usize,
    },
}

impl Op {
    /// The number of parameters (weights and biases).
    pub fn num_parameters(&self) -> usize {
        match self {
            Op::Conv(c) => c.weights.len() + c.bias.len(),
            Op::Dense(l) => l.weights.len() + l.bias.len(),
            _ => 0,
        }
    }
}

/// A network as a sequential program of [`Op`]s from `inputs` entries to
/// `outputs` entries, checked at construction: every shape chains, every
/// slot is stored before it is read, every output is written exactly once.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    inputs: usize,
    outputs: usize,
    ops: Vec<Op>,
    /// The longest current activation.
    widest: usize,
    /// The longest activation stored in each slot.
    slot_widest: [usize; MAX_SLOTS],
}

impl Graph {
    /// A graph of `ops`, checked.
    ///
    /// # Errors
    /// [`NetError::Empty`] for no operation; [`NetError::Shape`] naming the
    /// first operation whose shapes do not chain (its index in `layer`).
    pub fn new(inputs: usize, outputs: usize, ops: Vec<Op>) -> Result<Self, NetError> {
        if ops.is_empty() {
            return Err(NetError::Empty);
        }
        let bad = |k: usize, what: String| Err(NetError::Shape { layer: k, what });
        if ops.len() > MAX_OPS {
            return bad(MAX_OPS, format!("{} operations (at most {MAX_OPS})", ops.len()));
        }
        if inputs == 0 || outputs == 0 || inputs > MAX_ACTIVATION || outputs > MAX_ACTIVATION {
            return bad(0, format!("{inputs} inputs and {outputs} outputs"));
        }
        let mut written = vec![false; outputs];
        let mut cur: Option<usize> = None;
        let mut slots: [Option<usize>; MAX_SLOTS] = [None; MAX_SLOTS];
        let mut widest = 0usize;
        let mut slot_widest = [0usize; MAX_SLOTS];
        for (k, op) in ops.iter().enumerate() {
            let prod = |a: usize, b: usize, c: usize| a.checked_mul(b).and_then(|v| v.checked_mul(c));
            let slot =
                |s: usize| if s < MAX_SLOTS { Ok(s) } else { Err(format!("slot {s} (at most {})", MAX_SLOTS - 1)) };
            let need =
                |cur: Option<usize>| cur.ok_or_else(|| "no current activation (an Input comes first)".to_string());
            let next: Result<Option<usize>, String> = (|| match op {
                Op::Input { start, len } => {
                    if *len == 0 || start.checked_add(*len).is_none_or(|e| e > inputs) {
                        return Err(format!("input {start}..+{len} of {inputs}"));
                    }
                    Ok(Some(*len))
                }
                Op::ConcatInput { start, len } => {
                    let n = need(cur)?;
                    if *len == 0 || start.checked_add(*len).is_none_or(|e| e > inputs) {
                        return Err(format!("input {start}..+{len} of {inputs}"));
                    }
                    Ok(Some(n + len))
                }
                Op::ToHwc { channels, height, width } | Op::ToChw { channels, height, width } => {
                    let n = need(cur)?;
                    if prod(*channels, *height, *width) != Some(n) || n == 0 {
                        return Err(format!("{channels}×{height}×{width} planes for {n} entries"));
                    }
                    Ok(Some(n))
                }
                Op::Conv(c) => {
                    let n = need(cur)?;
                    if c.kernel != 1 && c.kernel != 3 {
                        return Err(format!("a {0}×{0} kernel (1 or 3)", c.kernel));
                    }
                    if c.outputs == 0 || prod(c.height, c.width, c.inputs) != Some(n) || n == 0 {
                        return Err(format!(
                            "a convolution over {}×{}×{} for {n} entries",
                            c.height, c.width, c.inputs
                        ));
                    }
                    if prod(c.kernel * c.kernel, c.inputs, c.outputs) != Some(c.weights.len())
                        || c.bias.len() != c.outputs
                    {
                        return Err(format!("{} weights and {} biases", c.weights.len(), c.bias.len()));
                    }
                    prod(c.height, c.width, c.outputs).map(Some).ok_or_else(|| "too many outputs".to_string())
                }
                Op::Dense(l) => {
                    let n = need(cur)?;
                    if l.inputs != n || l.outputs == 0 {
                        return Err(format!("a dense layer of {} inputs for {n} entries", l.inputs));
                    }
                    if l.weights.len() != l.inputs * l.outputs || l.bias.len() != l.outputs {
                        return Err(format!("{} weights and {} biases", l.weights.len(), l.bias.len()));
                    }
                    Ok(Some(l.outputs))
                }
                Op::Relu => need(cur).map(Some),
                Op::Store(s) => {
                    let n = need(cur)?;
                    slots[slot(*s)?] = Some(n);
                    slot_widest[*s] = slot_widest[*s].max(n);
                    Ok(Some(n))
                }
                Op::Load(s) => {
                    slots[slot(*s)?].map(Some).ok_or_else(|| format!("slot {s} is read before it is stored"))
                }
                Op::Add(s) => {
                    let n = need(cur)?;
                    let m = slots[slot(*s)?].ok_or_else(|| format!("slot {s} is read before it is stored"))?;
                    if m != n {
                        return Err(format!("adding slot {s} of {m} entries to {n}"));
                    }
                    Ok(Some(n))
                }
                Op::Concat(s) => {
                    let n = need(cur)?;
                    let m = slots[slot(*s)?].ok_or_else(|| format!("slot {s} is read before it is stored"))?;
                    Ok(Some(n + m))
                }
                Op::GlobalAvgPool { channels, positions } => {
                    let n = need(cur)?;
                    if channels.checked_mul(*positions) != Some(n) || n == 0 {
                        return Err(format!("pooling {channels} channels over {positions} positions for {n} entries"));
                    }
                    Ok(Some(*channels))
                }
                Op::Output { offset } => {
                    let n = need(cur)?;
                    let end = offset.checked_add(n).filter(|&e| e <= outputs);
                    let Some(end) = end else {
                        return Err(format!("output {offset}..+{n} of {outputs}"));
                    };
                    if written[*offset..end].iter().any(|&w| w) {
                        return Err(format!("output {offset}..{end} is written twice"));
                    }
                    written[*offset..end].iter_mut().for_each(|w| *w = true);
                    Ok(Some(n))
                }
            })();
            match next {
                Ok(n) => cur = n,
                Err(what) => return bad(k, what),
            }
            let n = cur.unwrap_or(0);
            if n > MAX_ACTIVATION {
                return bad(k, format!("an activation of {n} entries (at most {MAX_ACTIVATION})"));
            }
            widest = widest.max(n);
        }
        if let Some(o) = written.iter().position(|&w| !w) {
            return bad(ops.len() - 1, format!("output {o} is never written"));
        }
        Ok(Graph { inputs, outputs, ops, widest, slot_widest })
    }

    /// The graph of an [`Mlp`]: `Input`, then its layers with `Relu`
    /// between them, then `Output` at 0.
    pub fn from_mlp(mlp: &Mlp) -> Self {
        let mut ops = vec![Op::Input { start: 0, len: mlp.inputs() }];
        for (k, l) in mlp.layers().iter().enumerate() {
            if k > 0 {
                ops.push(Op::Relu);
            }
            ops.push(Op::Dense(l.clone()));
        }
        ops.push(Op::Output { offset: 0 });
        let widest = mlp.sizes().into_iter().max().unwrap_or(0);
        Graph { inputs: mlp.inputs(), outputs: mlp.outputs(), ops, widest, slot_widest: [0; MAX_SLOTS] }
    }

    /// The [`Mlp`] this graph is, when it is exactly the graph of one
    /// ([`Graph::from_mlp`]).
    pub fn to_mlp(&self) -> Option<Mlp> {
        let (Some(Op::Input { start: 0, len }), Some(Op::Output { offset: 0 })) = (self.ops.first(), self.ops.last())
        else {
            return None;
        };
        if *len != self.inputs {
            return None;
        }
        let body = &self.ops[1..self.ops.len() - 1];
        let mut layers = Vec::with_capacity(body.len() / 2 + 1);
        for (k, op) in body.iter().enumerate() {
            match (k % 2, op) {
                (0, Op::Dense(l)) => layers.push(l.clone()),
                (1, Op::Relu) => {}
                _ => return None,
            }
        }
        if body.len().is_multiple_of(2) {
            return None;
        }
        Mlp::new(layers).ok()
    }

    /// The operations.
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }
    /// Mutable access to the parameters of every operation, in order
    /// (`(weights, biases)` of each `Conv` and `Dense`): the shapes stay.
    pub fn parameters_mut(&mut self) -> impl Iterator<Item = (&mut [f32], &mut [f32])> {
        self.ops.iter_mut().filter_map(|op| match op {
            Op::Conv(c) => Some((c.weights.as_mut_slice(), c.bias.as_mut_slice())),
            Op::Dense(l) => Some((l.weights.as_mut_slice(), l.bias.as_mut_slice())),
            _ => None,
        })
    }
    /// The number of inputs.
    pub fn inputs(&self) -> usize {
        self.inputs
    }
    /// The number of outputs.
    pub fn outputs(&self) -> usize {
        self.outputs
    }
    /// The number of parameters.
    pub fn num_parameters(&self) -> usize {
        self.ops.iter().map(Op::num_parameters).sum()
    }

    /// Writes the graph's outputs for `input` into `out` through the
    /// buffers of `scratch` ([`GraphScratch::for_graph`]): nothing is
    /// allocated.
    ///
    /// # Errors
    /// [`NetError::Buffer`] when `input`, `out` or `scratch` do not fit.
    pub fn forward(&self, input: &[f32], s: &mut GraphScratch, out: &mut [f32]) -> Result<(), NetError> {
        let check = |what, found, expected| {
            if found == expected { Ok(()) } else { Err(NetError::Buffer { what, found, expected }) }
        };
        check("the input", input.len(), self.inputs)?;
        check("the output", out.len(), self.outputs)?;
        let slots_fit = s.slots.iter().zip(&self.slot_widest).all(|(b, &w)| b.len() >= w);
        if s.x.len() < self.widest || s.y.len() < self.widest || !slots_fit {
            return Err(NetError::Buffer {
                what: "the scratch",
                found: s.x.len().min(s.y.len()),
                expected: self.widest,
            });
        }
        let mut n = 0usize;
        let mut slot_len = [0usize; MAX_SLOTS];
        for op in &self.ops {
            match op {
                Op::Input { start, len } => {
                    s.x[..*len].copy_from_slice(&input[*start..start + len]);
                    n = *len;
                }
                Op::ConcatInput { start, len } => {
                    s.x[n..n + len].copy_from_slice(&input[*start..start + len]);
                    n += len;
                }
                Op::ToHwc { channels, height, width } => {
                    let (c, hw) = (*channels, height * width);
                    for ch in 0..c {
                        for p in 0..hw {
                            s.y[p * c + ch] = s.x[ch * hw + p];
                        }
                    }
                    std::mem::swap(&mut s.x, &mut s.y);
                }
                Op::ToChw { channels, height, width } => {
                    let (c, hw) = (*channels, height * width);
                    for ch in 0..c {
                        for p in 0..hw {
                            s.y[ch * hw + p] = s.x[p * c + ch];
                        }
                    }
                    std::mem::swap(&mut s.x, &mut s.y);
                }
                Op::Conv(c) => {
                    let m = c.height * c.width * c.outputs;
                    c.forward(&s.x[..n], &mut s.y[..m]);
                    std::mem::swap(&mut s.x, &mut s.y);
                    n = m;
                }
                Op::Dense(l) => {
                    l.forward(&s.x[..n], &mut s.y[..l.outputs]);
                    std::mem::swap(&mut s.x, &mut s.y);
                    n = l.outputs;
                }
                Op::Relu => s.x[..n].iter_mut().for_each(|v| *v = v.max(0.0)),
                Op::Store(k) => {
                    s.slots[*k][..n].copy_from_slice(&s.x[..n]);
                    slot_len[*k] = n;
                }
                Op::Load(k) => {
                    n = slot_len[*k];
                    s.x[..n].copy_from_slice(&s.slots[*k][..n]);
                }
                Op::Add(k) => s.x[..n].iter_mut().zip(&s.slots[*k][..n]).for_each(|(a, b)| *a += b),
                Op::Concat(k) => {
                    let m = slot_len[*k];
                    s.x[n..n + m].copy_from_slice(&s.slots[*k][..m]);
                    n += m;
                }
                Op::GlobalAvgPool { channels, positions } => {
                    let c = *channels;
                    s.y[..c].iter_mut().for_each(|v| *v = 0.0);
                    for row in s.x[..n].chunks_exact(c) {
                        s.y[..c].iter_mut().zip(row).for_each(|(a, b)| *a += b);
                    }
                    let inv = 1.0 / *positions as f32;
                    s.y[..c].iter_mut().for_each(|v| *v *= inv);
                    std::mem::swap(&mut s.x, &mut s.y);
                    n = c;
                }
                Op::Output { offset } => out[*offset..offset + n].copy_from_slice(&s.x[..n]),
            }
        }
        Ok(())
    }
}

/// The buffers of [`Graph::forward`], made once and reused for every call.
#[derive(Clone, Debug, Default)]
pub struct GraphScratch {
    x: Vec<f32>,
    y: Vec<f32>,
    slots: [Vec<f32>; MAX_SLOTS],
}

impl GraphScratch {
    /// Buffers that fit `graph`.
    pub fn for_graph(graph: &Graph) -> Self {
        GraphScratch {
            x: vec![0.0; graph.widest],
            y: vec![0.0; graph.widest],
            slots: graph.slot_widest.map(|w| vec![0.0; w]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(v: &mut [f32], seed: f32) {
        for (k, w) in v.iter_mut().enumerate() {
            *w = ((k as f32 * 0.37 + seed).sin()) * 0.5;
        }
    }

    /// A plain reference convolution, CHW in and out, weights read as
    /// PyTorch lays them out (`[o][i][ky][kx]`, from the kit's layout).
    fn reference_conv(c: &Conv, x_chw: &[f32]) -> Vec<f32> {
        let (h, w, k, r) = (c.height as isize, c.width as isize, c.kernel, (c.kernel / 2) as isize);
        let mut y = vec![0.0f32; c.outputs * (h * w) as usize];
        for o in 0..c.outputs {
            for py in 0..h {
                for px in 0..w {
                    let mut acc = c.bias[o];
                    for i in 0..c.inputs {
                        for ky in 0..k {
                            for kx in 0..k {
                                let (qy, qx) = (py + ky as isize - r, px + kx as isize - r);
                                if qy < 0 || qx < 0 || qy >= h || qx >= w {
                                    continue;
                                }
                                let wt = c.weights[((ky * k + kx) * c.inputs + i) * c.outputs + o];
                                acc += wt * x_chw[i * (h * w) as usize + (qy * w + qx) as usize];
                            }
                        }
                    }
                    y[o * (h * w) as usize + (py * w + px) as usize] = acc;
                }
            }
        }
        y
    }

    /// A small residual tower with two heads, as the trained networks use.
    fn tower() -> Graph {
        let (c, h, w) = (3, 4, 5);
        let mut stem = Conv::zeros(3, 2, c, h, w);
        fill(&mut stem.weights, 0.1);
        fill(&mut stem.bias, 0.7);
        let mut a = Conv::zeros(3, c, c, h, w);
        fill(&mut a.weights, 1.3);
        let mut b = Conv::zeros(3, c, c, h, w);
        fill(&mut b.weights, 2.1);
        fill(&mut b.bias, 0.2);
        let mut p = Conv::zeros(1, c, 2, h, w);
        fill(&mut p.weights, 0.9);
        let mut v = Layer::zeros(c + 3, 2);
        fill(&mut v.weights, 0.4);
        fill(&mut v.bias, 0.5);
        Graph::new(
            2 * h * w + 3,
            2 * h * w + 2,
            vec![
                Op::Input { start: 2 * h * w, len: 3 },
                Op::Store(1),
                Op::Input { start: 0, len: h * w },
                Op::ConcatInput { start: h * w, len: h * w },
                Op::ToHwc { channels: 2, height: h, width: w },
                Op::Conv(stem),
                Op::Relu,
                Op::Store(0),
                Op::Conv(a),
                Op::Relu,
                Op::Conv(b),
                Op::Add(0),
                Op::Relu,
                Op::Store(2),
                Op::Conv(p),
                Op::ToChw { channels: 2, height: h, width: w },
                Op::Output { offset: 0 },
                Op::Load(2),
                Op::GlobalAvgPool { channels: c, positions: h * w },
                Op::Concat(1),
                Op::Dense(v),
                Op::Output { offset: 2 * h * w },
            ],
        )
        .unwrap()
    }

    /// Every block width of the convolution's accumulators (32, 16, 8 and
    /// one channel at a time) and both kernels give the reference's outputs,
    /// with zero inputs among the others.
    #[test]
    fn every_output_block_width_matches_the_reference() {
        let (h, w) = (5, 4);
        for (kernel, inputs, outputs) in
            [(3, 5, 32), (3, 3, 64), (3, 7, 16), (1, 9, 48), (3, 4, 8), (1, 6, 24), (3, 2, 13)]
        {
            let mut c = Conv::zeros(kernel, inputs, outputs, h, w);
            fill(&mut c.weights, 0.3 + outputs as f32);
            fill(&mut c.bias, 1.1);
            let x_chw: Vec<f32> =
                (0..inputs * h * w).map(|i| if i % 4 == 1 { 0.0 } else { ((i * 5) % 7) as f32 - 3.0 }).collect();
            let mut x_hwc = vec![0.0; x_chw.len()];
            for ch in 0..inputs {
                for p in 0..h * w {
                    x_hwc[p * inputs + ch] = x_chw[ch * h * w + p];
                }
            }
            let mut y = vec![f32::NAN; outputs * h * w];
            c.forward(&x_hwc, &mut y);
            let expected = reference_conv(&c, &x_chw);
            for o in 0..outputs {
                for p in 0..h * w {
                    let (got, want) = (y[p * outputs + o], expected[o * h * w + p]);
                    assert!(
                        (got - want).abs() < 1e-4,
                        "k{kernel} {inputs}->{outputs}, channel {o}, position {p}: {got} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_residual_tower_matches_a_plain_reference() {
        let g = tower();
        let (h, w) = (4, 5);
        let input: Vec<f32> =
            (0..g.inputs()).map(|i| if i % 3 == 0 { 0.0 } else { ((i * 7) % 5) as f32 - 2.0 }).collect();
        let mut s = GraphScratch::for_graph(&g);
        let mut out = vec![0.0; g.outputs()];
        g.forward(&input, &mut s, &mut out).unwrap();
        // The same computation written plainly, CHW throughout.
        let Op::Conv(stem) = &g.ops()[5] else { unreachable!() };
        let Op::Conv(a) = &g.ops()[8] else { unreachable!() };
        let Op::Conv(b) = &g.ops()[10] else { unreachable!() };
        let Op::Conv(p) = &g.ops()[14] else { unreachable!() };
        let Op::Dense(v) = &g.ops()[20] else { unreachable!() };
        let relu = |x: Vec<f32>| x.into_iter().map(|v| v.max(0.0)).collect::<Vec<_>>();
        let x0 = relu(reference_conv(stem, &input[..2 * h * w]));
        let x1 = relu(reference_conv(a, &x0));
        let x2: Vec<f32> = reference_conv(b, &x1).iter().zip(&x0).map(|(p, q)| (p + q).max(0.0)).collect();
        let policy = reference_conv(p, &x2);
        let mut feats: Vec<f32> =
            (0..3).map(|ch| x2[ch * h * w..(ch + 1) * h * w].iter().sum::<f32>() / 20.0).collect();
        feats.extend_from_slice(&input[2 * h * w..]);
        let value: Vec<f32> =
            (0..2).map(|o| v.bias[o] + (0..6).map(|i| feats[i] * v.weights[i * 2 + o]).sum::<f32>()).collect();
        let expected: Vec<f32> = policy.into_iter().chain(value).collect();
        for (k, (x, y)) in out.iter().zip(&expected).enumerate() {
            assert!((x - y).abs() < 1e-4, "output {k}: {x} vs {y}");
        }
        assert!(out.iter().any(|&x| x != 0.0));
        assert_eq!(g.num_parameters(), (9 * 2 * 3 + 3) + 2 * (9 * 9 + 3) + (3 * 2 + 2) + (6 * 2 + 2));
    }

    #[test]
    fn an_mlp_round_trips_through_its_graph() {
        let mut l0 = Layer::zeros(4, 3);
        fill(&mut l0.weights, 0.3);
        let mut l1 = Layer::zeros(3, 2);
        fill(&mut l1.weights, 0.6);
        let mlp = Mlp::new(vec![l0, l1]).unwrap();
        let g = Graph::from_mlp(&mlp);
        assert_eq!(g.to_mlp().as_ref(), Some(&mlp));
        assert_eq!(Graph::new(4, 2, g.ops().to_vec()).unwrap(), g);
        let input = [1.0, 0.0, -2.0, 0.5];
        let (mut a, mut b) = ([0.0; 2], [0.0; 2]);
        mlp.forward(&input, &mut crate::nn::MlpScratch::for_mlp(&mlp), &mut a).unwrap();
        g.forward(&input, &mut GraphScratch::for_graph(&g), &mut b).unwrap();
        assert_eq!(a, b, "bit for bit");
        assert_eq!(tower().to_mlp(), None);
    }

    #[test]
    fn bad_graphs_are_refused_with_the_operation() {
        let shape = |inputs, outputs, ops| match Graph::new(inputs, outputs, ops) {
            Err(NetError::Shape { layer, what }) => (layer, what),
            other => panic!("{other:?}"),
        };
        let (k, what) = shape(4, 2, vec![Op::Relu]);
        assert!(k == 0 && what.contains("Input comes first"), "{what}");
        let (k, what) = shape(4, 2, vec![Op::Input { start: 2, len: 3 }, Op::Output { offset: 0 }]);
        assert!(k == 0 && what.contains("input 2..+3 of 4"), "{what}");
        let (k, what) = shape(4, 4, vec![Op::Input { start: 0, len: 4 }, Op::Add(1), Op::Output { offset: 0 }]);
        assert!(k == 1 && what.contains("read before"), "{what}");
        let (k, what) =
            shape(4, 4, vec![Op::Input { start: 0, len: 4 }, Op::Output { offset: 0 }, Op::Output { offset: 0 }]);
        assert!(k == 2 && what.contains("twice"), "{what}");
        let (_, what) = shape(4, 5, vec![Op::Input { start: 0, len: 4 }, Op::Output { offset: 0 }]);
        assert!(what.contains("output 4 is never written"), "{what}");
        let (k, what) = shape(
            4,
            4,
            vec![
                Op::Input { start: 0, len: 4 },
                Op::ToHwc { channels: 3, height: 1, width: 1 },
                Op::Output { offset: 0 },
            ],
        );
        assert!(k == 1 && what.contains("3×1×1"), "{what}");
        let (_, what) = shape(
            4,
            4,
            vec![Op::Input { start: 0, len: 4 }, Op::Conv(Conv::zeros(5, 1, 1, 2, 2)), Op::Output { offset: 0 }],
        );
        assert!(what.contains("kernel"), "{what}");
        let (_, what) =
            shape(4, 4, vec![Op::Input { start: 0, len: 4 }, Op::ToHwc { channels: usize::MAX, height: 2, width: 2 }]);
        assert!(what.contains("planes"), "{what}");
        assert_eq!(Graph::new(4, 4, vec![]), Err(NetError::Empty));
        let g = tower();
        let mut out = vec![0.0; g.outputs()];
        let input = vec![0.0; g.inputs()];
        assert!(g.forward(&input[1..], &mut GraphScratch::for_graph(&g), &mut out).is_err());
        assert!(g.forward(&input, &mut GraphScratch::default(), &mut out).is_err());
        assert!(g.forward(&input, &mut GraphScratch::for_graph(&g), &mut out[1..]).is_err());
    }
}
