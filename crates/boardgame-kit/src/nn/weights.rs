//! [`Network`]: a policy-and-value network for one game — a [`Graph`] of
//! typed layers — and its versioned weights file.
//!
//! The format is described in the module docs of [`crate::nn`].

use super::graph::{Conv, Graph, GraphScratch, MAX_ACTIVATION, MAX_OPS, Op};
use super::mlp::{Layer, Mlp, NetError};

/// The magic bytes a weights file starts with.
pub const MAGIC: [u8; 4] = *b"BGNN";
/// The weights-file format version this crate reads and writes.
pub const WEIGHTS_FORMAT_VERSION: u16 = 2;
/// The most layers a file may declare.
pub const MAX_LAYERS: usize = 16;
/// The most parameters a file may hold (16 M, 64 MB of `f32`).
pub const MAX_PARAMETERS: usize = 1 << 24;
/// The longest free text a file may hold.
pub const MAX_TEXT: usize = 1 << 16;

/// A weights file that cannot be read, or a network that does not fit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    /// The file does not start with [`MAGIC`].
    #[error("not a weights file (it does not start with \"BGNN\")")]
    Magic,
    /// A format version this crate does not read.
    #[error("weights format version {found} is not supported (this crate reads version {WEIGHTS_FORMAT_VERSION})")]
    Version {
        /// The file's version.
        found: u16,
    },
    /// The file ends inside a field.
    #[error("the weights file is cut short: {field} needs {needed} more bytes, {left} are left")]
    Truncated {
        /// The field being read.
        field: &'static str,
        /// Bytes it needs.
        needed: usize,
        /// Bytes left.
        left: usize,
    },
    /// Bytes follow the checksum.
    #[error("{0} bytes follow the checksum of the weights file")]
    Trailing(usize),
    /// The checksum does not match the bytes.
    #[error("the weights file is corrupt: checksum {found:#018x}, its bytes give {computed:#018x}")]
    Checksum {
        /// The checksum in the file.
        found: u64,
        /// The checksum of its bytes.
        computed: u64,
    },
    /// The declared shape is impossible or too large.
    #[error("bad network shape: {0}")]
    Shape(String),
    /// A text field is not UTF-8.
    #[error("the {0} is not UTF-8")]
    Utf8(&'static str),
    /// A parameter is NaN or infinite.
    #[error("parameter {index} of layer {layer} is not finite")]
    NonFinite {
        /// The layer, from 0.
        layer: usize,
        /// The parameter's index in the layer (weights, then biases).
        index: usize,
    },
    /// The network is for another game or another tensor layout.
    #[error("the network does not fit {game}: {what}")]
    Mismatch {
        /// The game it was meant for.
        game: String,
        /// What differs.
        what: String,
    },
}

/// A policy-and-value network for one game: a [`Graph`] (an [`Mlp`] is one
/// of dense layers) from the network's input to `policy_len` policy logits followed by
/// `value_len` value logits, with the game's name and a free text saying
/// how it was trained.
///
/// ```
/// use boardgame_kit::nn::Network;
///
/// let net = Network::new_random("hidden-nim", 4, &[8], 3, 2, 7).unwrap();
/// let bytes = net.to_bytes();
/// assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
/// let mut corrupt = bytes.clone();
/// let last_parameter = corrupt.len() - 12; // before the 8-byte checksum
/// corrupt[last_parameter] ^= 1;
/// assert!(Network::from_bytes(&corrupt).unwrap_err().to_string().contains("corrupt"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    game: String,
    obs_len: usize,
    policy_len: usize,
    value_len: usize,
    text: String,
    graph: Graph,
}

/// The buffers of [`Network::forward`], made once ([`Network::scratch`])
/// and reused for every call.
#[derive(Clone, Debug, Default)]
pub struct NetScratch {
    graph: GraphScratch,
}

impl Network {
    /// A network over `mlp` (held as its [`Graph`] of dense layers, which
    /// computes the MLP's outputs bit for bit), checked: its inputs are
    /// `obs_len` and its outputs `policy_len + value_len`.
    ///
    /// # Errors
    /// [`WeightsError::Shape`] when the sizes disagree or a length is 0.
    pub fn new(
        game: &str,
        obs_len: usize,
        policy_len: usize,
        value_len: usize,
        text: &str,
        mlp: Mlp,
    ) -> Result<Self, WeightsError> {
        if mlp.layers().len() > MAX_LAYERS {
            return Err(WeightsError::Shape(format!("{} layers (at most {MAX_LAYERS})", mlp.layers().len())));
        }
        let (inputs, outputs, params) = (mlp.inputs(), mlp.outputs(), mlp.num_parameters());
        Self::checked(game, obs_len, policy_len, value_len, text, inputs, outputs, params, Graph::from_mlp(&mlp))
    }

    /// A network over `graph` (its inputs are the network's input, its
    /// outputs `policy_len + value_len`), checked.
    ///
    /// # Errors
    /// [`WeightsError::Shape`] when the sizes disagree or a length is 0.
    pub fn from_graph(
        game: &str,
        policy_len: usize,
        value_len: usize,
        text: &str,
        graph: Graph,
    ) -> Result<Self, WeightsError> {
        let (inputs, outputs, params) = (graph.inputs(), graph.outputs(), graph.num_parameters());
        Self::checked(game, inputs, policy_len, value_len, text, inputs, outputs, params, graph)
    }

    #[allow(clippy::too_many_arguments)]
    fn checked(
        game: &str,
        obs_len: usize,
        policy_len: usize,
        value_len: usize,
        text: &str,
        inputs: usize,
        outputs: usize,
        params: usize,
        graph: Graph,
    ) -> Result<Self, WeightsError> {
        let shape = |m: String| Err(WeightsError::Shape(m));
        if obs_len == 0 || policy_len == 0 {
            return shape("the observation and the policy need at least one entry".into());
        }
        if inputs != obs_len {
            return shape(format!("{inputs} inputs for an observation of {obs_len}"));
        }
        if Some(outputs) != policy_len.checked_add(value_len) {
            return shape(format!("{outputs} outputs for {policy_len} policy and {value_len} value entries"));
        }
        if params > MAX_PARAMETERS {
            return shape(format!("{params} parameters (at most {MAX_PARAMETERS})"));
        }
        if game.len() > 255 || text.len() > MAX_TEXT {
            return shape("the game's name or the text is too long".into());
        }
        Ok(Network { game: game.to_string(), obs_len, policy_len, value_len, text: text.to_string(), graph })
    }

    /// A network with `hidden` layer widths and small deterministic
    /// pseudo-random weights from `seed` (He-scaled uniform, biases 0): the
    /// start of training, and a fixture for tests.
    ///
    /// # Errors
    /// As [`Network::new`].
    pub fn new_random(
        game: &str,
        obs_len: usize,
        hidden: &[usize],
        policy_len: usize,
        value_len: usize,
        seed: u64,
    ) -> Result<Self, WeightsError> {
        let mut rng = crate::GameRng::new(seed);
        let widths: Vec<usize> =
            std::iter::once(obs_len).chain(hidden.iter().copied()).chain([policy_len + value_len]).collect();
        if widths.len() - 1 > MAX_LAYERS || widths.contains(&0) {
            return Err(WeightsError::Shape(format!("widths {widths:?}")));
        }
        let params: usize = widths.windows(2).map(|w| w[0] * w[1] + w[1]).sum();
        if params > MAX_PARAMETERS {
            return Err(WeightsError::Shape(format!("{params} parameters")));
        }
        let layers = widths
            .windows(2)
            .map(|w| {
                let mut l = Layer::zeros(w[0], w[1]);
                let scale = (6.0 / w[0] as f64).sqrt();
                for x in &mut l.weights {
                    *x = ((rng.unit_f64() * 2.0 - 1.0) * scale) as f32;
                }
                l
            })
            .collect();
        let mlp = Mlp::new(layers).map_err(|e| WeightsError::Shape(e.to_string()))?;
        Network::new(game, obs_len, policy_len, value_len, "", mlp)
    }

    /// The game's name ([`Game::NAME`](crate::Game::NAME)).
    pub fn game(&self) -> &str {
        &self.game
    }
    /// The observation tensor's length (the network's inputs).
    pub fn obs_len(&self) -> usize {
        self.obs_len
    }
    /// The policy logits: outputs `0..policy_len`.
    pub fn policy_len(&self) -> usize {
        self.policy_len
    }
    /// The value logits: outputs `policy_len..policy_len + value_len`.
    pub fn value_len(&self) -> usize {
        self.value_len
    }
    /// The number of outputs, `policy_len + value_len`.
    pub fn outputs(&self) -> usize {
        self.policy_len + self.value_len
    }
    /// How the network was trained.
    pub fn text(&self) -> &str {
        &self.text
    }
    /// Replaces the free text.
    pub fn set_text(&mut self, text: &str) {
        self.text = text.chars().take(MAX_TEXT / 4).collect();
    }
    /// The network as an MLP, when its graph is one (dense layers with
    /// ReLU between them, at most [`MAX_LAYERS`] of them).
    pub fn mlp(&self) -> Option<Mlp> {
        self.graph.to_mlp().filter(|m| m.layers().len() <= MAX_LAYERS)
    }
    /// The network's [`Graph`].
    pub fn graph(&self) -> &Graph {
        &self.graph
    }
    /// The number of parameters (weights and biases).
    pub fn num_parameters(&self) -> usize {
        self.graph.num_parameters()
    }

    /// Buffers for [`Network::forward`].
    pub fn scratch(&self) -> NetScratch {
        NetScratch { graph: GraphScratch::for_graph(&self.graph) }
    }

    /// Writes the network's [`outputs`](Network::outputs) for `input`
    /// (length [`obs_len`](Network::obs_len)) into `out`, through the
    /// buffers of `scratch` ([`Network::scratch`]): nothing is allocated.
    ///
    /// # Errors
    /// [`NetError::Buffer`] when `input`, `out` or `scratch` do not fit.
    pub fn forward(&self, input: &[f32], scratch: &mut NetScratch, out: &mut [f32]) -> Result<(), NetError> {
        self.graph.forward(input, &mut scratch.graph, out)
    }

    /// The outputs for `rows` inputs laid end to end in `inputs` (each
    /// [`obs_len`](Network::obs_len) long): `rows × outputs` values, row
    /// after row.
    ///
    /// # Errors
    /// [`NetError::Buffer`] when `inputs` is not `rows` inputs long.
    pub fn forward_rows(&self, inputs: &[f32], rows: usize) -> Result<Vec<f32>, NetError> {
        let (cols, outputs) = (self.obs_len(), self.outputs());
        if Some(inputs.len()) != rows.checked_mul(cols) {
            return Err(NetError::Buffer { what: "inputs", expected: rows.saturating_mul(cols), found: inputs.len() });
        }
        let len = rows.checked_mul(outputs);
        let len = len.ok_or(NetError::Buffer { what: "outputs", expected: usize::MAX, found: rows })?;
        let mut scratch = self.scratch();
        let mut out = vec![0.0f32; len];
        if cols > 0 {
            for (row, dst) in inputs.chunks_exact(cols).zip(out.chunks_exact_mut(outputs)) {
                self.forward(row, &mut scratch, dst)?;
            }
        }
        Ok(out)
    }

    /// Checks that the network is for `game` with these lengths.
    ///
    /// # Errors
    /// [`WeightsError::Mismatch`] saying what differs.
    pub fn check_fits(
        &self,
        game: &str,
        obs_len: usize,
        policy_len: usize,
        value_len: usize,
    ) -> Result<(), WeightsError> {
        let what = if self.game != game {
            format!("it was trained for `{}`", self.game)
        } else if self.obs_len != obs_len {
            format!("its observation has {} entries, the game's {obs_len}", self.obs_len)
        } else if self.policy_len != policy_len {
            format!("its policy has {} entries, the game's {policy_len}", self.policy_len)
        } else if self.value_len != value_len {
            format!("its value has {} entries, the game's {value_len}", self.value_len)
        } else {
            return Ok(());
        };
        Err(WeightsError::Mismatch { game: game.to_string(), what })
    }

    /// The weights file (format version [`WEIGHTS_FORMAT_VERSION`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let graph = self.graph();
        let mut b = Vec::with_capacity(64 + self.text.len() + 24 * graph.ops().len() + 4 * graph.num_parameters());
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&WEIGHTS_FORMAT_VERSION.to_le_bytes());
        b.push(self.game.len() as u8);
        b.extend_from_slice(self.game.as_bytes());
        for n in [self.obs_len, self.policy_len, self.value_len] {
            b.extend_from_slice(&(n as u32).to_le_bytes());
        }
        b.extend_from_slice(&(self.text.len() as u32).to_le_bytes());
        b.extend_from_slice(self.text.as_bytes());
        b.extend_from_slice(&(graph.ops().len() as u16).to_le_bytes());
        for op in graph.ops() {
            let (kind, fields): (u8, Vec<usize>) = match op {
                Op::Input { start, len } => (1, vec![*start, *len]),
                Op::ConcatInput { start, len } => (2, vec![*start, *len]),
                Op::ToHwc { channels, height, width } => (3, vec![*channels, *height, *width]),
                Op::ToChw { channels, height, width } => (4, vec![*channels, *height, *width]),
                Op::Conv(c) => (5, vec![c.kernel, c.inputs, c.outputs, c.height, c.width]),
                Op::Dense(l) => (6, vec![l.inputs, l.outputs]),
                Op::Relu => (7, vec![]),
                Op::Store(s) => (8, vec![*s]),
                Op::Load(s) => (9, vec![*s]),
                Op::Add(s) => (10, vec![*s]),
                Op::Concat(s) => (11, vec![*s]),
                Op::GlobalAvgPool { channels, positions } => (12, vec![*channels, *positions]),
                Op::Output { offset } => (13, vec![*offset]),
            };
            b.push(kind);
            for f in fields {
                b.extend_from_slice(&(f as u32).to_le_bytes());
            }
        }
        for op in graph.ops() {
            let (w, bias): (&[f32], &[f32]) = match op {
                Op::Conv(c) => (&c.weights, &c.bias),
                Op::Dense(l) => (&l.weights, &l.bias),
                _ => continue,
            };
            for x in w.iter().chain(bias) {
                b.extend_from_slice(&x.to_le_bytes());
            }
        }
        let sum = fnv1a(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Reads a weights file (format version [`WEIGHTS_FORMAT_VERSION`]).
    ///
    /// # Errors
    /// A [`WeightsError`] naming what is wrong with the bytes; a file of
    /// another format version is [`WeightsError::Version`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WeightsError> {
        let mut r = Reader { bytes, at: 0 };
        let Header { game, obs_len, policy_len, value_len } = r.header(WEIGHTS_FORMAT_VERSION)?;
        let text_len = r.u32("the text's length")? as usize;
        if text_len > MAX_TEXT {
            return Err(WeightsError::Shape(format!("a text of {text_len} bytes (at most {MAX_TEXT})")));
        }
        let text = std::str::from_utf8(r.take(text_len, "the text")?).map_err(|_| WeightsError::Utf8("text"))?;
        let n_ops = usize::from(r.u16("the number of operations")?);
        if n_ops == 0 || n_ops > MAX_OPS {
            return Err(WeightsError::Shape(format!("{n_ops} operations (1 to {MAX_OPS})")));
        }
        // The headers first, into a fixed array: nothing is allocated from
        // the file's claims until every parameter's bytes are known to be there.
        let mut heads = [(0u8, [0usize; 5]); MAX_OPS];
        let mut params = 0usize;
        for head in heads.iter_mut().take(n_ops) {
            let kind = r.take(1, "an operation's kind")?[0];
            let n_fields = match kind {
                1 | 2 | 6 | 12 => 2,
                3 | 4 => 3,
                5 => 5,
                7 => 0,
                8..=11 | 13 => 1,
                _ => return Err(WeightsError::Shape(format!("unknown operation kind {kind}"))),
            };
            head.0 = kind;
            for f in head.1.iter_mut().take(n_fields) {
                *f = r.u32("an operation's fields")? as usize;
                if *f > MAX_ACTIVATION {
                    return Err(WeightsError::Shape(format!("a field of {f} in operation kind {kind}")));
                }
            }
            let f = head.1;
            let count = match kind {
                5 => f[0].saturating_mul(f[0]).saturating_mul(f[1]).saturating_mul(f[2]).saturating_add(f[2]),
                6 => f[0].saturating_mul(f[1]).saturating_add(f[1]),
                _ => 0,
            };
            params = params.saturating_add(count);
        }
        if params > MAX_PARAMETERS {
            return Err(WeightsError::Shape(format!("{params} parameters (at most {MAX_PARAMETERS})")));
        }
        let left = bytes.len() - r.at;
        if left < 4 * params + 8 {
            return Err(WeightsError::Truncated { field: "the parameters", needed: 4 * params + 8, left });
        }
        let mut ops = Vec::with_capacity(n_ops);
        let mut layer = 0usize;
        for &(kind, f) in &heads[..n_ops] {
            let mut read = |w: &mut [f32], b: &mut [f32]| -> Result<(), WeightsError> {
                for (index, x) in w.iter_mut().chain(b.iter_mut()).enumerate() {
                    let v = f32::from_le_bytes(r.array("the parameters")?);
                    if !v.is_finite() {
                        return Err(WeightsError::NonFinite { layer, index });
                    }
                    *x = v;
                }
                layer += 1;
                Ok(())
            };
            ops.push(match kind {
                1 => Op::Input { start: f[0], len: f[1] },
                2 => Op::ConcatInput { start: f[0], len: f[1] },
                3 => Op::ToHwc { channels: f[0], height: f[1], width: f[2] },
                4 => Op::ToChw { channels: f[0], height: f[1], width: f[2] },
                5 => {
                    let mut c = Conv::zeros(f[0], f[1], f[2], f[3], f[4]);
                    read(&mut c.weights, &mut c.bias)?;
                    Op::Conv(c)
                }
                6 => {
                    let mut l = Layer::zeros(f[0], f[1]);
                    read(&mut l.weights, &mut l.bias)?;
                    Op::Dense(l)
                }
                7 => Op::Relu,
                8 => Op::Store(f[0]),
                9 => Op::Load(f[0]),
                10 => Op::Add(f[0]),
                11 => Op::Concat(f[0]),
                12 => Op::GlobalAvgPool { channels: f[0], positions: f[1] },
                _ => Op::Output { offset: f[0] },
            });
        }
        r.checksum()?;
        let outputs = policy_len.checked_add(value_len).ok_or_else(|| WeightsError::Shape("the heads".into()))?;
        let graph = Graph::new(obs_len, outputs, ops).map_err(|e| WeightsError::Shape(e.to_string()))?;
        Network::from_graph(game, policy_len, value_len, text, graph)
    }
}

/// The weights file's checksum: FNV-1a 64 of every byte before it.
fn fnv1a(bytes: &[u8]) -> u64 {
    crate::Fnv1a::of(bytes)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// The fields every format version starts with.
struct Header<'a> {
    game: &'a str,
    obs_len: usize,
    policy_len: usize,
    value_len: usize,
}

impl<'a> Reader<'a> {
    /// The magic, the version (which must be `version`), the game's name
    /// and the three tensor lengths: the header both format versions share.
    fn header(&mut self, version: u16) -> Result<Header<'a>, WeightsError> {
        if self.take(4, "the magic")? != MAGIC {
            return Err(WeightsError::Magic);
        }
        let found = self.u16("the version")?;
        if found != version {
            return Err(WeightsError::Version { found });
        }
        let name_len = usize::from(self.take(1, "the game's name")?[0]);
        let game = std::str::from_utf8(self.take(name_len, "the game's name")?)
            .map_err(|_| WeightsError::Utf8("game's name"))?;
        let obs_len = self.u32("the observation length")? as usize;
        let policy_len = self.u32("the policy length")? as usize;
        let value_len = self.u32("the value length")? as usize;
        Ok(Header { game, obs_len, policy_len, value_len })
    }

    /// The checksum that ends every format version: it must be the last
    /// eight bytes and match every byte before it.
    fn checksum(&mut self) -> Result<(), WeightsError> {
        let computed = fnv1a(&self.bytes[..self.at]);
        let found = u64::from_le_bytes(self.array("the checksum")?);
        if self.at != self.bytes.len() {
            return Err(WeightsError::Trailing(self.bytes.len() - self.at));
        }
        if found != computed {
            return Err(WeightsError::Checksum { found, computed });
        }
        Ok(())
    }
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], WeightsError> {
        let left = self.bytes.len() - self.at;
        if n > left {
            return Err(WeightsError::Truncated { field, needed: n, left });
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], WeightsError> {
        let s = self.take(N, field)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    fn u16(&mut self, field: &'static str) -> Result<u16, WeightsError> {
        self.array(field).map(u16::from_le_bytes)
    }
    fn u32(&mut self, field: &'static str) -> Result<u32, WeightsError> {
        self.array(field).map(u32::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net() -> Network {
        let mut n = Network::new_random("hidden-nim", 5, &[6, 4], 3, 2, 11).unwrap();
        n.set_text("test net");
        n
    }

    #[test]
    fn round_trip_and_every_cut_is_refused() {
        let n = net();
        let bytes = n.to_bytes();
        assert_eq!(Network::from_bytes(&bytes).unwrap(), n);
        assert_eq!(n.text(), "test net");
        for cut in 0..bytes.len() {
            let err = Network::from_bytes(&bytes[..cut]).unwrap_err();
            assert!(matches!(err, WeightsError::Truncated { .. } | WeightsError::Magic), "cut at {cut}: {err}");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(Network::from_bytes(&long), Err(WeightsError::Trailing(1)));
    }

    #[test]
    fn every_flipped_bit_is_refused() {
        let bytes = net().to_bytes();
        for i in 0..bytes.len() {
            for bit in [0, 3, 7] {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                assert!(Network::from_bytes(&b).is_err(), "byte {i} bit {bit} accepted");
            }
        }
    }

    /// The version-1 file of an MLP network (the layout of format version
    /// 1), which the reader refuses.
    fn v1_bytes(n: &Network) -> Vec<u8> {
        let mlp = n.mlp().unwrap();
        let mut b = Vec::new();
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&1u16.to_le_bytes());
        b.push(n.game().len() as u8);
        b.extend_from_slice(n.game().as_bytes());
        for x in [n.obs_len(), n.policy_len(), n.value_len()] {
            b.extend_from_slice(&(x as u32).to_le_bytes());
        }
        b.push(mlp.layers().len() as u8);
        for w in mlp.sizes() {
            b.extend_from_slice(&(w as u32).to_le_bytes());
        }
        b.extend_from_slice(&(n.text().len() as u32).to_le_bytes());
        b.extend_from_slice(n.text().as_bytes());
        for l in mlp.layers() {
            for x in l.weights.iter().chain(&l.bias) {
                b.extend_from_slice(&x.to_le_bytes());
            }
        }
        let sum = fnv1a(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    #[test]
    fn a_version_1_file_is_refused() {
        let n = net();
        let old = v1_bytes(&n);
        let e = Network::from_bytes(&old).unwrap_err();
        assert_eq!(e, WeightsError::Version { found: 1 });
        assert!(e.to_string().contains("version 2"), "{e}");
    }

    #[test]
    fn hostile_headers_are_refused_without_allocating_their_claims() {
        let good = net().to_bytes();
        let mut b = good.clone();
        b[4] = 9;
        assert_eq!(Network::from_bytes(&b), Err(WeightsError::Version { found: 9 }));
        let mut b = good.clone();
        b[0] = b'X';
        assert_eq!(Network::from_bytes(&b), Err(WeightsError::Magic));
        // name, 3 lengths, text ("test net"), then the number of operations
        let ops_at = 7 + "hidden-nim".len() + 12 + 4 + "test net".len();
        assert_eq!(u16::from_le_bytes([good[ops_at], good[ops_at + 1]]), 7, "Input, 3 Dense, 2 Relu, Output");
        // The first op is Input(0, 5); the second Dense(5, 6): claim 2^20 × 2^20.
        let dense_at = ops_at + 2 + 9;
        assert_eq!(good[dense_at], 6);
        let mut b = good.clone();
        b[dense_at + 1..dense_at + 5].copy_from_slice(&(1u32 << 20).to_le_bytes());
        b[dense_at + 5..dense_at + 9].copy_from_slice(&(1u32 << 20).to_le_bytes());
        assert!(matches!(Network::from_bytes(&b), Err(WeightsError::Shape(_))), "{:?}", Network::from_bytes(&b));
        let mut b = good.clone();
        b[dense_at + 1..dense_at + 5].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(Network::from_bytes(&b), Err(WeightsError::Shape(_))));
        // An unknown kind; zero and too many operations.
        let mut b = good.clone();
        b[dense_at] = 99;
        assert!(Network::from_bytes(&b).unwrap_err().to_string().contains("unknown operation kind 99"));
        for n in [0u16, 1000] {
            let mut b = good.clone();
            b[ops_at..ops_at + 2].copy_from_slice(&n.to_le_bytes());
            assert!(matches!(Network::from_bytes(&b), Err(WeightsError::Shape(_))));
        }
        // Shapes that do not chain, with a recomputed checksum: refused by the graph's check.
        let mut b = good[..good.len() - 8].to_vec();
        b[dense_at + 1..dense_at + 5].copy_from_slice(&4u32.to_le_bytes());
        let cut = b.len() - 6 * 4; // the claimed layer has 6 fewer weights
        b.truncate(cut);
        let sum = fnv1a(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        let e = Network::from_bytes(&b).unwrap_err();
        assert!(matches!(&e, WeightsError::Shape(m) if m.contains("dense layer of 4 inputs for 5")), "{e}");
        // A NaN parameter with a recomputed checksum.
        let mut mlp = net().mlp().unwrap();
        mlp.layers_mut()[1].bias[2] = f32::NAN;
        let n = Network::new("hidden-nim", 5, 3, 2, "test net", mlp).unwrap();
        let b = n.to_bytes();
        assert_eq!(Network::from_bytes(&b), Err(WeightsError::NonFinite { layer: 1, index: 6 * 4 + 2 }));
    }

    #[test]
    fn a_graph_network_round_trips_and_runs() {
        use crate::nn::graph::{Conv, Op};
        let mut conv = Conv::zeros(3, 2, 3, 2, 2);
        conv.weights.iter_mut().enumerate().for_each(|(k, w)| *w = (k as f32 * 0.1).sin());
        let mut dense = Layer::zeros(3, 2);
        dense.weights = vec![1.0, -1.0, 0.5, 0.25, 0.0, 2.0];
        let ops = vec![
            Op::Input { start: 0, len: 8 },
            Op::ToHwc { channels: 2, height: 2, width: 2 },
            Op::Conv(conv),
            Op::Relu,
            Op::Store(0),
            Op::ToChw { channels: 3, height: 2, width: 2 },
            Op::Output { offset: 0 },
            Op::Load(0),
            Op::GlobalAvgPool { channels: 3, positions: 4 },
            Op::Dense(dense),
            Op::Output { offset: 12 },
        ];
        let g = Graph::new(8, 14, ops).unwrap();
        let n = Network::from_graph("g", 12, 2, "a graph", g).unwrap();
        assert!(n.mlp().is_none());
        assert_eq!(n.num_parameters(), 9 * 2 * 3 + 3 + 6 + 2);
        let bytes = n.to_bytes();
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!(back, n);
        for cut in (0..bytes.len()).step_by(3) {
            assert!(Network::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let input = [1.0, 0.0, 2.0, -1.0, 0.5, 0.0, 0.0, 3.0];
        let mut out = vec![0.0; n.outputs()];
        n.forward(&input, &mut n.scratch(), &mut out).unwrap();
        assert!(out.iter().all(|x| x.is_finite()) && out[..12].iter().any(|&x| x > 0.0), "{out:?}");
        assert!(n.forward(&input[1..], &mut n.scratch(), &mut out).is_err());
        assert!(Network::from_graph("g", 12, 3, "", back.graph().clone()).is_err());

        // Every header and operation byte set to hostile values, the checksum
        // recomputed: read or refused, never a panic; what is read runs.
        let params_at = bytes.len() - 8 - 4 * n.num_parameters();
        for at in 4..params_at {
            for v in [0u8, 1, 2, 3, 7, 13, 0x7f, 0xff] {
                let mut b = bytes[..bytes.len() - 8].to_vec();
                b[at] = v;
                let sum = fnv1a(&b);
                b.extend_from_slice(&sum.to_le_bytes());
                if let Ok(m) = Network::from_bytes(&b) {
                    let mut out = vec![0.0; m.outputs()];
                    let input = vec![1.0; m.obs_len()];
                    m.forward(&input, &mut m.scratch(), &mut out).unwrap();
                }
            }
        }
    }

    #[test]
    fn fit_is_checked() {
        let n = net();
        assert!(n.check_fits("hidden-nim", 5, 3, 2).is_ok());
        let e = n.check_fits("korovan", 5, 3, 2).unwrap_err().to_string();
        assert!(e.contains("trained for `hidden-nim`"), "{e}");
        assert!(n.check_fits("hidden-nim", 6, 3, 2).unwrap_err().to_string().contains("observation has 5"));
        assert!(n.check_fits("hidden-nim", 5, 4, 2).is_err());
        assert!(n.check_fits("hidden-nim", 5, 3, 1).is_err());
        assert!(Network::new("x", 5, 3, 2, "", net().mlp().unwrap().clone()).is_ok());
        assert!(Network::new("x", 4, 3, 2, "", net().mlp().unwrap().clone()).is_err());
        assert!(Network::new("x", 5, 3, 3, "", net().mlp().unwrap().clone()).is_err());
    }
}
