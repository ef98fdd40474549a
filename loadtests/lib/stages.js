// Traffic shapes shared by the k6 scripts and the Node runner (QuickPizza's lib/stages.js):
// one user journey, several shapes. Durations in seconds.
export const SHAPES = {
  smoke: [{ duration: 5, target: 2 }],
  load: [
    { duration: 10, target: 20 },
    { duration: 40, target: 20 },
    { duration: 10, target: 0 },
  ],
  stress: [
    { duration: 10, target: 50 },
    { duration: 30, target: 100 },
    { duration: 10, target: 0 },
  ],
};

export const toK6Stages = (shape) => SHAPES[shape].map((s) => ({ duration: `${s.duration}s`, target: s.target }));
