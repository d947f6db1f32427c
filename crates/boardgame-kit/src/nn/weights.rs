//! [`Network`]: a policy-and-value [`Mlp`] for one game, and its versioned
//! weights file.
//!
//! # The weights file, format version 1
//!
//! All integers little-endian.
//!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `BGNN` |
//! | 2 | format version (1) |
//! | 1 + n | the game's name ([`Game::NAME`](crate::Game::NAME)): its length, then UTF-8 |
//! | 4 · 3 | observation length, policy length, value length |
//! | 1 | number of layers `L` (1 to [`MAX_LAYERS`]) |
//! | 4 · (L + 1) | the widths, input first; the input is the observation length, the last width policy + value |
//! | 4 + m | a free text (how the network was trained): its length (at most [`MAX_TEXT`]), then UTF-8 |
//! | 4 · params | per layer its weights (input-major) then its biases, `f32` |
//! | 8 | FNV-1a 64 of every byte before it |
//!
//! A file that is cut short, has bytes after its checksum, a wrong magic,
//! version or checksum, widths that do not chain, a non-finite parameter or
//! more than [`MAX_PARAMETERS`] parameters is refused with a
//! [`WeightsError`] that says which; nothing in it can make the reader panic
//! or allocate more than the file's own size.

use super::mlp::{Layer, Mlp};

/// The magic bytes a weights file starts with.
pub const MAGIC: [u8; 4] = *b"BGNN";
/// The weights-file format version this crate reads and writes.
pub const WEIGHTS_FORMAT_VERSION: u16 = 1;
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

/// A policy-and-value network for one game: an [`Mlp`] from the
/// observation tensor to `policy_len` policy logits followed by
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
    mlp: Mlp,
}

impl Network {
    /// A network over `mlp`, checked: its inputs are `obs_len` and its
    /// outputs `policy_len + value_len`.
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
        let shape = |m: String| Err(WeightsError::Shape(m));
        if obs_len == 0 || policy_len == 0 {
            return shape("the observation and the policy need at least one entry".into());
        }
        if mlp.inputs() != obs_len {
            return shape(format!("{} inputs for an observation of {obs_len}", mlp.inputs()));
        }
        if mlp.outputs() != policy_len + value_len {
            return shape(format!("{} outputs for {policy_len} policy and {value_len} value entries", mlp.outputs()));
        }
        if mlp.layers().len() > MAX_LAYERS || mlp.num_parameters() > MAX_PARAMETERS {
            return shape(format!("{} layers and {} parameters", mlp.layers().len(), mlp.num_parameters()));
        }
        if game.len() > 255 || text.len() > MAX_TEXT {
            return shape("the game's name or the text is too long".into());
        }
        Ok(Network { game: game.to_string(), obs_len, policy_len, value_len, text: text.to_string(), mlp })
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
    /// How the network was trained.
    pub fn text(&self) -> &str {
        &self.text
    }
    /// Replaces the free text.
    pub fn set_text(&mut self, text: &str) {
        self.text = text.chars().take(MAX_TEXT / 4).collect();
    }
    /// The network.
    pub fn mlp(&self) -> &Mlp {
        &self.mlp
    }
    /// The network, for a trainer (shapes must stay as they are).
    pub fn mlp_mut(&mut self) -> &mut Mlp {
        &mut self.mlp
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
        let mut b = Vec::with_capacity(64 + self.text.len() + 4 * self.mlp.num_parameters());
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&WEIGHTS_FORMAT_VERSION.to_le_bytes());
        b.push(self.game.len() as u8);
        b.extend_from_slice(self.game.as_bytes());
        for n in [self.obs_len, self.policy_len, self.value_len] {
            b.extend_from_slice(&(n as u32).to_le_bytes());
        }
        b.push(self.mlp.layers().len() as u8);
        for w in self.mlp.sizes() {
            b.extend_from_slice(&(w as u32).to_le_bytes());
        }
        b.extend_from_slice(&(self.text.len() as u32).to_le_bytes());
        b.extend_from_slice(self.text.as_bytes());
        for l in self.mlp.layers() {
            for x in l.weights.iter().chain(&l.bias) {
                b.extend_from_slice(&x.to_le_bytes());
            }
        }
        let sum = fnv1a(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Reads a weights file.
    ///
    /// # Errors
    /// A [`WeightsError`] naming what is wrong with the bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WeightsError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(4, "the magic")? != MAGIC {
            return Err(WeightsError::Magic);
        }
        let version = r.u16("the version")?;
        if version != WEIGHTS_FORMAT_VERSION {
            return Err(WeightsError::Version { found: version });
        }
        let name_len = usize::from(r.take(1, "the game's name")?[0]);
        let game =
            std::str::from_utf8(r.take(name_len, "the game's name")?).map_err(|_| WeightsError::Utf8("game's name"))?;
        let obs_len = r.u32("the observation length")? as usize;
        let policy_len = r.u32("the policy length")? as usize;
        let value_len = r.u32("the value length")? as usize;
        let n_layers = usize::from(r.take(1, "the number of layers")?[0]);
        if n_layers == 0 || n_layers > MAX_LAYERS {
            return Err(WeightsError::Shape(format!("{n_layers} layers (1 to {MAX_LAYERS})")));
        }
        let mut widths = [0usize; MAX_LAYERS + 1];
        for w in widths.iter_mut().take(n_layers + 1) {
            *w = r.u32("the widths")? as usize;
        }
        let widths = &widths[..=n_layers];
        let mut params = 0usize;
        for w in widths.windows(2) {
            if w[0] == 0 || w[1] == 0 || w[0] > MAX_PARAMETERS || w[1] > MAX_PARAMETERS {
                return Err(WeightsError::Shape(format!("widths {widths:?}")));
            }
            params = params.saturating_add(w[0] * w[1] + w[1]);
        }
        if params > MAX_PARAMETERS {
            return Err(WeightsError::Shape(format!("{params} parameters (at most {MAX_PARAMETERS})")));
        }
        let text_len = r.u32("the text's length")? as usize;
        if text_len > MAX_TEXT {
            return Err(WeightsError::Shape(format!("a text of {text_len} bytes (at most {MAX_TEXT})")));
        }
        let text = std::str::from_utf8(r.take(text_len, "the text")?).map_err(|_| WeightsError::Utf8("text"))?;
        // Every parameter's bytes must be there before anything is allocated.
        let left = bytes.len() - r.at;
        if left < 4 * params + 8 {
            return Err(WeightsError::Truncated { field: "the parameters", needed: 4 * params + 8, left });
        }
        let mut layers = Vec::with_capacity(n_layers);
        for (k, w) in widths.windows(2).enumerate() {
            let mut l = Layer::zeros(w[0], w[1]);
            for (index, x) in l.weights.iter_mut().chain(l.bias.iter_mut()).enumerate() {
                let v = f32::from_le_bytes(r.array("the parameters")?);
                if !v.is_finite() {
                    return Err(WeightsError::NonFinite { layer: k, index });
                }
                *x = v;
            }
            layers.push(l);
        }
        let computed = fnv1a(&bytes[..r.at]);
        let found = u64::from_le_bytes(r.array("the checksum")?);
        if r.at != bytes.len() {
            return Err(WeightsError::Trailing(bytes.len() - r.at));
        }
        if found != computed {
            return Err(WeightsError::Checksum { found, computed });
        }
        let mlp = Mlp::new(layers).map_err(|e| WeightsError::Shape(e.to_string()))?;
        Network::new(game, obs_len, policy_len, value_len, text, mlp)
    }
}

/// FNV-1a, 64 bits: the weights file's checksum (against corruption, not
/// tampering).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
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

    #[test]
    fn hostile_headers_are_refused_without_allocating_their_claims() {
        let good = net().to_bytes();
        let mut b = good.clone();
        b[4] = 9;
        assert_eq!(Network::from_bytes(&b), Err(WeightsError::Version { found: 9 }));
        let mut b = good.clone();
        b[0] = b'X';
        assert_eq!(Network::from_bytes(&b), Err(WeightsError::Magic));
        // A header claiming 2^32-1 inputs.
        let name_end = 7 + "hidden-nim".len();
        let widths_at = name_end + 12 + 1;
        let mut b = good.clone();
        b[widths_at..widths_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(Network::from_bytes(&b), Err(WeightsError::Shape(_))), "{:?}", Network::from_bytes(&b));
        // Zero layers, too many layers.
        for n in [0u8, 17] {
            let mut b = good.clone();
            b[name_end + 12] = n;
            assert!(matches!(Network::from_bytes(&b), Err(WeightsError::Shape(_))));
        }
        // A NaN parameter with a recomputed checksum.
        let mut n = net();
        n.mlp_mut().layers_mut()[1].bias[2] = f32::NAN;
        let b = n.to_bytes();
        assert_eq!(Network::from_bytes(&b), Err(WeightsError::NonFinite { layer: 1, index: 6 * 4 + 2 }));
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
        assert!(Network::new("x", 5, 3, 2, "", net().mlp().clone()).is_ok());
        assert!(Network::new("x", 4, 3, 2, "", net().mlp().clone()).is_err());
        assert!(Network::new("x", 5, 3, 3, "", net().mlp().clone()).is_err());
    }
}
