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

function tone(freq, start, duration, { type = "sine", gain = 0.15 } = {}) {
  const ac = audio();
  if (!ac) return;
  const t0 = ac.currentTime + start;
  const osc = ac.createOscillator();
  const amp = ac.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  amp.gain.setValueAtTime(0, t0);
  amp.gain.linearRampToValueAtTime(gain, t0 + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, t0 + duration);
  osc.connect(amp).connect(ac.destination);
  osc.start(t0);
  osc.stop(t0 + duration + 0.02);
}

function noise(duration, { gain = 0.12, freq = 2500 } = {}) {
  const ac = audio();
  if (!ac) return;
  const length = Math.floor(ac.sampleRate * duration);
  const buffer = ac.createBuffer(1, length, ac.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / length);
  const src = ac.createBufferSource();
  src.buffer = buffer;
  const filter = ac.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = freq;
  const amp = ac.createGain();
  amp.gain.value = gain;
  src.connect(filter).connect(amp).connect(ac.destination);
  src.start();
}

export const sounds = {
  chip() {
    tone(1800, 0, 0.05, { type: "triangle", gain: 0.12 });
    tone(2600, 0.015, 0.04, { type: "triangle", gain: 0.08 });
  },
  card() {
    noise(0.09, { gain: 0.25, freq: 3000 });
  },
  win() {
    [523, 659, 784, 1047].forEach((f, i) => tone(f, i * 0.09, 0.25, { gain: 0.12 }));
  },
  lose() {
    tone(220, 0, 0.35, { type: "sine", gain: 0.12 });
    tone(165, 0.12, 0.4, { type: "sine", gain: 0.1 });
  },
  push() {
    tone(440, 0, 0.2, { gain: 0.1 });
  },
  error() {
    tone(180, 0, 0.15, { type: "square", gain: 0.05 });
  },
};
