//! [`Tower`]: the residual convolution tower the board networks use, as a
//! [`Graph`] — the layout `python/korovan_caravan/learn/nets.py` trains
//! and exports; built here with random weights for benches and tests.

use super::graph::{Conv, Graph, Op};
use super::mlp::{Layer, NetError};

/// The shape of a residual tower over board planes with global features:
///
/// * the trunk: the `planes` ranges of the input (CHW, concatenated along
///   channels), a 3×3 convolution to `channels`, ReLU, then `blocks`
///   residual blocks (3×3, ReLU, 3×3, add, ReLU);
/// * the features: the trunk's global average pool, concatenated with the
///   `globals` ranges of the input, a dense layer to `hidden` and ReLU;
/// * the policy: `policy_before` logits from the features, then a 1×1
///   convolution of the trunk to `policy_planes` channels (CHW: logit
///   `policy_before + channel · positions + square`), then `policy_after`
///   logits from the features;
/// * the value: `value_len` logits from the features.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tower {
    /// The network's input length.
    pub inputs: usize,
    /// `(start, channels)` of each range of board planes in the input.
    pub planes: Vec<(usize, usize)>,
    /// `(start, len)` of each range of global features in the input.
    pub globals: Vec<(usize, usize)>,
    /// Board rows.
    pub height: usize,
    /// Board columns.
    pub width: usize,
    /// Channels of the trunk.
    pub channels: usize,
    /// Residual blocks.
    pub blocks: usize,
    /// Width of the features' hidden layer.
    pub hidden: usize,
    /// Policy logits from the features, first.
    pub policy_before: usize,
    /// Policy planes from the trunk.
    pub policy_planes: usize,
    /// Policy logits from the features, last.
    pub policy_after: usize,
    /// Value logits.
    pub value_len: usize,
}

impl Tower {
    /// The policy's length.
    pub fn policy_len(&self) -> usize {
        self.policy_before + self.policy_planes * self.height * self.width + self.policy_after
    }

    /// The graph with small deterministic pseudo-random weights from
    /// `seed` (He-scaled uniform, biases 0).
    ///
    /// # Errors
    /// [`NetError::Shape`] when the shape does not chain (no planes, a
    /// range past the input, a zero width).
    pub fn build(&self, seed: u64) -> Result<Graph, NetError> {
        let mut rng = crate::GameRng::new(seed);
        let mut uniform = |v: &mut [f32], fan_in: usize| {
            let scale = (6.0 / fan_in.max(1) as f64).sqrt();
            v.iter_mut().for_each(|x| *x = ((rng.unit_f64() * 2.0 - 1.0) * scale) as f32);
        };
        let (h, w, c) = (self.height, self.width, self.channels);
        let hw = h * w;
        let mut conv = |k: usize, i: usize, o: usize| {
            let mut cv = Conv::zeros(k, i, o, h, w);
            uniform(&mut cv.weights, k * k * i);
            Op::Conv(cv)
        };
        let mut ops = Vec::new();
        let empty = |what: &str| NetError::Shape { layer: 0, what: format!("no {what}") };
        let globals: usize = self.globals.iter().map(|g| g.1).sum();
        for (k, &(start, len)) in self.globals.iter().enumerate() {
            ops.push(if k == 0 { Op::Input { start, len } } else { Op::ConcatInput { start, len } });
        }
        if globals > 0 {
            ops.push(Op::Store(1));
        }
        let in_channels: usize = self.planes.iter().map(|p| p.1).sum();
        for (k, &(start, ch)) in self.planes.iter().enumerate() {
            let len = ch * hw;
            ops.push(if k == 0 { Op::Input { start, len } } else { Op::ConcatInput { start, len } });
        }
        if self.planes.is_empty() {
            return Err(empty("board planes"));
        }
        ops.push(Op::ToHwc { channels: in_channels, height: h, width: w });
        ops.push(conv(3, in_channels, c));
        ops.push(Op::Relu);
        for _ in 0..self.blocks {
            ops.extend([Op::Store(0), conv(3, c, c), Op::Relu, conv(3, c, c), Op::Add(0), Op::Relu]);
        }
        ops.push(Op::Store(2));
        if self.policy_planes > 0 {
            ops.push(conv(1, c, self.policy_planes));
            ops.push(Op::ToChw { channels: self.policy_planes, height: h, width: w });
            ops.push(Op::Output { offset: self.policy_before });
            ops.push(Op::Load(2));
        }
        ops.push(Op::GlobalAvgPool { channels: c, positions: hw });
        if globals > 0 {
            ops.push(Op::Concat(1));
        }
        let mut dense = |i: usize, o: usize| {
            let mut l = Layer::zeros(i, o);
            uniform(&mut l.weights, i);
            Op::Dense(l)
        };
        ops.extend([dense(c + globals, self.hidden), Op::Relu, Op::Store(3)]);
        let policy_len = self.policy_len();
        let mut first = true;
        for (len, offset) in
            [(self.policy_before, 0), (self.policy_after, policy_len - self.policy_after), (self.value_len, policy_len)]
        {
            if len == 0 {
                continue;
            }
            if !first {
                ops.push(Op::Load(3));
            }
            first = false;
            ops.extend([dense(self.hidden, len), Op::Output { offset }]);
        }
        Graph::new(self.inputs, policy_len + self.value_len, ops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::GraphScratch;

    #[test]
    fn a_tower_builds_runs_and_fills_every_output() {
        let t = Tower {
            inputs: 2 * 9 + 4 + 9,
            planes: vec![(0, 2), (22, 1)],
            globals: vec![(18, 4)],
            height: 3,
            width: 3,
            channels: 4,
            blocks: 2,
            hidden: 8,
            policy_before: 2,
            policy_planes: 2,
            policy_after: 3,
            value_len: 2,
        };
        let g = t.build(5).unwrap();
        assert_eq!(g.outputs(), 2 + 18 + 3 + 2);
        assert_eq!(g, t.build(5).unwrap(), "seeded");
        let input: Vec<f32> = (0..g.inputs()).map(|i| (i % 3) as f32).collect();
        let mut out = vec![f32::NAN; g.outputs()];
        g.forward(&input, &mut GraphScratch::for_graph(&g), &mut out).unwrap();
        assert!(out.iter().all(|x| x.is_finite()), "{out:?}");
        let bad = Tower { planes: vec![], ..t.clone() };
        assert!(bad.build(1).is_err());
        let past = Tower { planes: vec![(20, 2)], ..t };
        assert!(past.build(1).is_err());
    }
}
