// A spinner on stderr while something waits, only on an interactive terminal, so that stdout
// stays exactly what a script reads.
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;
/** Calls quicker than this never show a spinner (no flicker). */
const SHOW_AFTER_MS = 150;

export async function withSpinner<T>(enabled: boolean, text: string, work: Promise<T>): Promise<T> {
  if (!enabled) return work;
  let frame = 0;
  let shown = false;
  let ticking: NodeJS.Timeout | undefined;
  const start = setTimeout(() => {
    ticking = setInterval(() => {
      shown = true;
      process.stderr.write(`\r${FRAMES[frame++ % FRAMES.length]} ${text}`);
    }, FRAME_MS);
  }, SHOW_AFTER_MS);
  try {
    return await work;
  } finally {
    clearTimeout(start);
    clearInterval(ticking);
    if (shown) process.stderr.write("\r\u001b[2K");
  }
}
