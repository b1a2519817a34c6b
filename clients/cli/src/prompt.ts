// Questions on the terminal: a line, a password without echo, a yes/no confirmation.
import readline from "node:readline";
import { UsageError } from "./errors.js";

export function canPrompt(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

export async function askLine(question: string): Promise<string> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await new Promise<string>((resolve, reject) => {
      rl.question(question, resolve);
      rl.once("close", () => reject(new UsageError("cancelled")));
    });
  } finally {
    rl.close();
  }
}

/** Reads a password with the terminal's echo off (nothing typed is shown). */
export async function askSecret(question: string): Promise<string> {
  const output = process.stderr;
  // The interface first: it turns the terminal's own echo off (raw mode), so what is typed the
  // moment the question shows is not echoed by the terminal either.
  const rl = readline.createInterface({ input: process.stdin, output, terminal: true });
  // readline echoes through _writeToOutput; swallowing it hides every keystroke.
  (rl as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = () => {};
  output.write(question);
  try {
    return await new Promise<string>((resolve, reject) => {
      rl.once("line", resolve);
      rl.once("close", () => reject(new UsageError("cancelled")));
    });
  } finally {
    rl.close();
    output.write("\n");
  }
}

/** Reads the first line of standard input (for --password-stdin). */
export async function readStdinLine(): Promise<string> {
  const rl = readline.createInterface({ input: process.stdin });
  try {
    for await (const line of rl) return line;
    return "";
  } finally {
    rl.close();
  }
}

export async function confirm(question: string): Promise<boolean> {
  const answer = await askLine(`${question} [y/N] `);
  return /^y(es)?$/i.test(answer.trim());
}
