//! [`Trainer`]: backpropagation through a [`Network`] and the Adam
//! optimiser, over the losses of [`crate::data::Sample`]s: cross-entropy to
//! a target policy (distillation), the clipped policy-gradient surrogate
//! (PPO), an entropy bonus and cross-entropy of the value head to the
//! game's shares.

use boardgame_kit::nn::{Mlp, Network};

use crate::data::SampleRef;

/// The loss weights and optimiser settings of a [`Trainer`].
#[derive(Clone, Debug, PartialEq)]
pub struct TrainSettings {
    /// Adam's step size.
    pub learning_rate: f32,
    /// The weight of the value head's loss.
    pub value_weight: f32,
    /// The weight of the entropy bonus.
    pub entropy_weight: f32,
    /// PPO's clip range ε of the probability ratio.
    pub clip: f32,
    /// Gradients whose global norm exceeds this are scaled down to it.
    pub max_grad_norm: f32,
}

impl Default for TrainSettings {
    fn default() -> Self {
        TrainSettings { learning_rate: 1e-3, value_weight: 0.5, entropy_weight: 0.0, clip: 0.2, max_grad_norm: 5.0 }
    }
}

/// What one minibatch measured (means over its samples).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BatchStats {
    /// Policy loss: cross-entropy to the target, or the clipped surrogate.
    pub policy_loss: f64,
    /// Value loss: cross-entropy of the value head to the shares.
    pub value_loss: f64,
    /// The policy's entropy over the legal actions.
    pub entropy: f64,
    /// Samples whose most likely legal action is the target's (or the
    /// action taken).
    pub agreement: f64,
}

/// Gradients (or Adam moments) shaped like a network's parameters.
#[derive(Clone, Debug)]
struct Params {
    layers: Vec<(Vec<f32>, Vec<f32>)>,
}

impl Params {
    fn zeros_like(mlp: &Mlp) -> Self {
        Params { layers: mlp.layers().iter().map(|l| (vec![0.0; l.weights.len()], vec![0.0; l.bias.len()])).collect() }
    }
    fn clear(&mut self) {
        for (w, b) in &mut self.layers {
            w.iter_mut().for_each(|x| *x = 0.0);
            b.iter_mut().for_each(|x| *x = 0.0);
        }
    }
    fn norm(&self) -> f64 {
        self.layers
            .iter()
            .flat_map(|(w, b)| w.iter().chain(b))
            .map(|&x| f64::from(x) * f64::from(x))
            .sum::<f64>()
            .sqrt()
    }
}

/// Trains a [`Network`] in place: [`Trainer::step`] takes a minibatch of
/// samples, backpropagates their losses and makes one Adam step. Single
/// threaded and deterministic: the same samples in the same order give the
/// same weights, bit for bit.
pub struct Trainer {
    /// The network's name, lengths and text (its weights are `mlp`'s).
    net: Network,
    /// The weights being trained.
    mlp: Mlp,
    settings: TrainSettings,
    grad: Params,
    m: Params,
    v: Params,
    t: i32,
    /// Per layer, its post-activation outputs for the current sample.
    acts: Vec<Vec<f32>>,
    /// Gradient at the current layer's outputs, and at its inputs.
    delta: Vec<f32>,
    delta_in: Vec<f32>,
    probs: Vec<f64>,
}

impl Trainer {
    /// A trainer of `net`.
    ///
    /// # Errors
    /// When `net` is not an MLP (this trainer has no backward pass for
    /// convolutions).
    pub fn new(net: Network, settings: TrainSettings) -> Result<Self, String> {
        let mlp = net.mlp().cloned().ok_or("this trainer trains MLP networks only")?;
        let grad = Params::zeros_like(&mlp);
        let acts = mlp.layers().iter().map(|l| vec![0.0; l.outputs]).collect();
        let widest = mlp.sizes().into_iter().max().unwrap_or(0);
        Ok(Trainer {
            mlp,
            m: grad.clone(),
            v: grad.clone(),
            grad,
            net,
            settings,
            t: 0,
            acts,
            delta: vec![0.0; widest],
            delta_in: vec![0.0; widest],
            probs: Vec::new(),
        })
    }

    /// The network as trained so far.
    pub fn network(&self) -> Network {
        let mut net = self.net.clone();
        if let Some(m) = net.mlp_mut() {
            *m = self.mlp.clone();
        }
        net
    }

    /// The network, ending the training.
    pub fn into_network(self) -> Network {
        self.network()
    }

    /// The settings (the learning rate may be changed between steps).
    pub fn settings_mut(&mut self) -> &mut TrainSettings {
        &mut self.settings
    }

    /// The forward pass of one sample, keeping every layer's outputs.
    fn forward(&mut self, s: &SampleRef<'_>) {
        let layers = self.mlp.layers();
        let last = layers.len() - 1;
        for (k, layer) in layers.iter().enumerate() {
            let (before, rest) = self.acts.split_at_mut(k);
            let out = &mut rest[0];
            out.copy_from_slice(&layer.bias);
            if k == 0 {
                for (&i, &x) in s.obs_idx.iter().zip(s.obs_val) {
                    let row = &layer.weights[i as usize * layer.outputs..(i as usize + 1) * layer.outputs];
                    out.iter_mut().zip(row).for_each(|(o, &w)| *o += x * w);
                }
            } else {
                for (i, &x) in before[k - 1].iter().enumerate() {
                    if x != 0.0 {
                        let row = &layer.weights[i * layer.outputs..(i + 1) * layer.outputs];
                        out.iter_mut().zip(row).for_each(|(o, &w)| *o += x * w);
                    }
                }
            }
            if k < last {
                out.iter_mut().for_each(|v| *v = v.max(0.0));
            }
        }
    }

    /// Adds one sample's gradient (with `scale`) and returns its losses.
    fn accumulate(&mut self, s: &SampleRef<'_>, scale: f32) -> BatchStats {
        self.forward(s);
        let policy_len = self.net.policy_len();
        let out = self.acts.last().expect("a network has a layer");
        let outputs = out.len();
        let delta = &mut self.delta[..outputs];
        delta.iter_mut().for_each(|d| *d = 0.0);
        let mut stats = BatchStats::default();

        // Policy: softmax over the legal actions.
        let n = s.legal.len();
        self.probs.clear();
        let max = s.legal.iter().map(|&i| f64::from(out[i as usize])).fold(f64::NEG_INFINITY, f64::max);
        let mut sum = 0.0;
        for &i in s.legal {
            let e = (f64::from(out[i as usize]) - max).exp();
            self.probs.push(e);
            sum += e;
        }
        self.probs.iter_mut().for_each(|p| *p /= sum);
        let entropy: f64 = -self.probs.iter().map(|&p| if p > 0.0 { p * p.ln() } else { 0.0 }).sum::<f64>();
        stats.entropy = entropy;
        let best = (0..n).max_by(|&a, &b| self.probs[a].total_cmp(&self.probs[b])).unwrap_or(0);
        match s.kind {
            crate::data::Target::Policy(target) => {
                let want = (0..n).max_by(|&a, &b| target[a].total_cmp(&target[b])).unwrap_or(0);
                stats.agreement = f64::from(u8::from(best == want));
                for k in 0..n {
                    let q = f64::from(target[k]);
                    if q > 0.0 {
                        stats.policy_loss -= q * self.probs[k].max(1e-12).ln();
                    }
                    delta[s.legal[k] as usize] += scale * (self.probs[k] - q) as f32;
                }
            }
            crate::data::Target::Action { taken, old_prob, advantage } => {
                let a = usize::from(taken);
                stats.agreement = f64::from(u8::from(best == a));
                let p = self.probs.get(a).copied().unwrap_or(1e-12).max(1e-12);
                let ratio = p / f64::from(old_prob).max(1e-12);
                let adv = f64::from(advantage);
                let eps = f64::from(self.settings.clip);
                let clipped = ratio.clamp(1.0 - eps, 1.0 + eps);
                stats.policy_loss = -(ratio * adv).min(clipped * adv);
                let active = !((adv > 0.0 && ratio > 1.0 + eps) || (adv < 0.0 && ratio < 1.0 - eps));
                if active {
                    for k in 0..n {
                        let d = if k == a { 1.0 } else { 0.0 } - self.probs[k];
                        delta[s.legal[k] as usize] += scale * (-adv * ratio * d) as f32;
                    }
                }
            }
        }
        let beta = f64::from(self.settings.entropy_weight);
        if beta > 0.0 {
            for k in 0..n {
                let p = self.probs[k];
                if p > 0.0 {
                    delta[s.legal[k] as usize] += scale * (beta * p * (p.ln() + entropy)) as f32;
                }
            }
        }

        // Value: softmax over the seats, relative to the observer.
        let players = s.value.len().min(self.net.value_len());
        if players > 0 {
            let z = &out[policy_len..policy_len + players];
            let max = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let e: f64 = z.iter().map(|&x| f64::from(x - max).exp()).sum();
            let w = self.settings.value_weight;
            for k in 0..players {
                let v = f64::from(z[k] - max).exp() / e;
                let t = f64::from(s.value[k]);
                if t > 0.0 {
                    stats.value_loss -= t * v.max(1e-12).ln();
                }
                delta[policy_len + k] += scale * w * (v - t) as f32;
            }
        }

        self.backward(s);
        stats
    }

    /// Backpropagates `self.delta` (the gradient at the outputs) into
    /// `self.grad`.
    fn backward(&mut self, s: &SampleRef<'_>) {
        let layers = self.mlp.layers();
        for k in (0..layers.len()).rev() {
            let layer = &layers[k];
            let outs = layer.outputs;
            let delta = &self.delta[..outs];
            let (gw, gb) = &mut self.grad.layers[k];
            gb.iter_mut().zip(delta).for_each(|(g, &d)| *g += d);
            if k == 0 {
                for (&i, &x) in s.obs_idx.iter().zip(s.obs_val) {
                    let row = &mut gw[i as usize * outs..(i as usize + 1) * outs];
                    row.iter_mut().zip(delta).for_each(|(g, &d)| *g += x * d);
                }
                break;
            }
            let input = &self.acts[k - 1];
            let delta_in = &mut self.delta_in[..layer.inputs];
            for (i, &x) in input.iter().enumerate() {
                let row = &layer.weights[i * outs..(i + 1) * outs];
                if x > 0.0 {
                    let grow = &mut gw[i * outs..(i + 1) * outs];
                    grow.iter_mut().zip(delta).for_each(|(g, &d)| *g += x * d);
                    // ReLU: the gradient passes where the unit was active.
                    delta_in[i] = row.iter().zip(delta).map(|(&w, &d)| w * d).sum();
                } else {
                    delta_in[i] = 0.0;
                }
            }
            let n = layer.inputs;
            self.delta[..n].copy_from_slice(&self.delta_in[..n]);
        }
    }

    /// One Adam step over the minibatch `samples` (the mean of their
    /// losses); returns the mean statistics.
    pub fn step<'a>(&mut self, samples: impl ExactSizeIterator<Item = SampleRef<'a>>) -> BatchStats {
        let count = samples.len().max(1);
        let scale = 1.0 / count as f32;
        self.grad.clear();
        let mut total = BatchStats::default();
        for s in samples {
            let st = self.accumulate(&s, scale);
            total.policy_loss += st.policy_loss;
            total.value_loss += st.value_loss;
            total.entropy += st.entropy;
            total.agreement += st.agreement;
        }
        let norm = self.grad.norm();
        let clip = f64::from(self.settings.max_grad_norm);
        let g_scale = if norm > clip && norm > 0.0 { (clip / norm) as f32 } else { 1.0 };
        self.t += 1;
        let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
        let c1 = 1.0 - b1.powi(self.t);
        let c2 = 1.0 - b2.powi(self.t);
        let lr = self.settings.learning_rate;
        for (k, layer) in self.mlp.layers_mut().iter_mut().enumerate() {
            let (gw, gb) = &self.grad.layers[k];
            let (mw, mb) = &mut self.m.layers[k];
            let (vw, vb) = &mut self.v.layers[k];
            for (p, g, m, v) in [(&mut layer.weights, gw, mw, vw), (&mut layer.bias, gb, mb, vb)] {
                for j in 0..p.len() {
                    let g = g[j] * g_scale;
                    m[j] = b1 * m[j] + (1.0 - b1) * g;
                    v[j] = b2 * v[j] + (1.0 - b2) * g * g;
                    p[j] -= lr * (m[j] / c1) / ((v[j] / c2).sqrt() + eps);
                }
            }
        }
        let c = count as f64;
        BatchStats {
            policy_loss: total.policy_loss / c,
            value_loss: total.value_loss / c,
            entropy: total.entropy / c,
            agreement: total.agreement / c,
        }
    }

    /// The gradient of the mean loss of `samples` with respect to every
    /// parameter, flattened layer by layer (weights then biases), without
    /// a step: for gradient checks.
    pub fn gradient<'a>(&mut self, samples: impl ExactSizeIterator<Item = SampleRef<'a>>) -> Vec<f32> {
        let scale = 1.0 / samples.len().max(1) as f32;
        self.grad.clear();
        for s in samples {
            self.accumulate(&s, scale);
        }
        self.grad.layers.iter().flat_map(|(w, b)| w.iter().chain(b)).copied().collect()
    }

    /// The mean loss of `samples` (policy + value weight × value + entropy
    /// bonus, as minimised), without a step: for gradient checks.
    pub fn loss<'a>(&mut self, samples: impl ExactSizeIterator<Item = SampleRef<'a>>) -> f64 {
        let count = samples.len().max(1) as f64;
        let mut total = 0.0;
        for s in samples {
            let st = self.accumulate(&s, 0.0);
            total += st.policy_loss + f64::from(self.settings.value_weight) * st.value_loss
                - f64::from(self.settings.entropy_weight) * st.entropy;
        }
        total / count
    }
}
