// Sound effects generated with WebAudio: nothing is fetched. The on/off switch is remembered.

const STORE = "baccarat.sound";
let ctx = null;

export const isOn = () => localStorage.getItem(STORE) !== "off";
export function setOn(on) {
  localStorage.setItem(STORE, on ? "on" : "off");
}

function audio() {
  if (!isOn()) return null;
  const Ctor = window.AudioContext || window.webkitAudioContext;
  if (!Ctor) return null;
  if (!ctx) ctx = new Ctor();
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  return ctx;
}

/** A short burst of filtered noise: the material of card snaps, chip clicks and swooshes. */
function noise(at, duration, { gain = 0.2, type = "bandpass", freq = 3000, q = 1, sweepTo = null } = {}) {
  const ac = audio();
  if (!ac) return;
  const t0 = ac.currentTime + at;
  const length = Math.max(1, Math.floor(ac.sampleRate * duration));
  const buffer = ac.createBuffer(1, length, ac.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / length) ** 2;
  const src = ac.createBufferSource();
  src.buffer = buffer;
  const filter = ac.createBiquadFilter();
  filter.type = type;
  filter.Q.value = q;
  filter.frequency.setValueAtTime(freq, t0);
  if (sweepTo) filter.frequency.exponentialRampToValueAtTime(sweepTo, t0 + duration);
  const amp = ac.createGain();
  amp.gain.value = gain;
  src.connect(filter).connect(amp).connect(ac.destination);
  src.start(t0);
}

/** A decaying sine: the ring of a clay chip, or the felt's soft thump under a card. */
function ring(at, freq, duration, gain) {
  const ac = audio();
  if (!ac) return;
  const t0 = ac.currentTime + at;
  const osc = ac.createOscillator();
  const amp = ac.createGain();
  osc.frequency.setValueAtTime(freq, t0);
  amp.gain.setValueAtTime(gain, t0);
  amp.gain.exponentialRampToValueAtTime(0.0001, t0 + duration);
  osc.connect(amp).connect(ac.destination);
  osc.start(t0);
  osc.stop(t0 + duration + 0.02);
}

// One chip set on another: a bright click with a short ring, a little different each time.
function click(at, gain = 1) {
  const pitch = 3400 + Math.random() * 900;
  noise(at, 0.012, { gain: 0.35 * gain, freq: pitch, q: 4 });
  ring(at, pitch * 1.4, 0.035, 0.025 * gain);
}

// Chips paid out or stacked: a run of clicks, unevenly spaced like real chips.
function cascade(count, gain = 1) {
  let at = 0;
  for (let i = 0; i < count; i++) {
    click(at, gain * (1 - i / (count * 2)));
    at += 0.035 + Math.random() * 0.045;
  }
}

export const sounds = {
  chip() {
    click(0);
    click(0.028 + Math.random() * 0.012, 0.6);
  },
  card() {
    // A card slid over the felt and snapped down: a soft swish, then a snap and a thump.
    noise(0, 0.07, { gain: 0.08, type: "highpass", freq: 2500 });
    noise(0.06, 0.02, { gain: 0.22, freq: 1800, q: 0.8 });
    ring(0.06, 150, 0.05, 0.05);
  },
  win() {
    cascade(7);
  },
  lose() {
    // The dealer sweeps the chips away.
    noise(0, 0.32, { gain: 0.12, type: "lowpass", freq: 1400, sweepTo: 300 });
    cascade(2, 0.4);
  },
  push() {
    cascade(2, 0.7);
  },
  error() {
    ring(0, 110, 0.12, 0.12);
  },
};
