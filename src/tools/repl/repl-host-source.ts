/**
 * The program the REPL's child process runs (`node -e`), kept as source text so it works the same
 * from TypeScript sources and from the built package. It evaluates code with Node's own REPL
 * evaluator (top-level `await`, declarations that persist across calls), captures console output per
 * call, and answers over the IPC channel. `breakEvalOnSigint` lets the parent stop a runaway
 * synchronous loop with SIGINT while keeping the session's state.
 */
export const replHostSource = `
'use strict';
const repl = require('node:repl');
const domain = require('node:domain');
const util = require('node:util');
const { PassThrough, Writable } = require('node:stream');
const { Console } = require('node:console');

const maxOutputChars = Number(process.env.EFFERENT_REPL_MAX_OUTPUT || 30000);
let current = null;
let chunks = [];
let captured = 0;
let truncated = false;

function sink() {
  return new Writable({
    write(chunk, _encoding, callback) {
      const text = String(chunk);
      if (captured < maxOutputChars) {
        const room = maxOutputChars - captured;
        chunks.push(text.slice(0, room));
        if (text.length > room) truncated = true;
        captured += Math.min(room, text.length);
      } else if (text.length > 0) {
        truncated = true;
      }
      callback();
    },
  });
}

function describeError(error) {
  if (error && typeof error === 'object' && 'stack' in error && typeof error.stack === 'string') return error.stack;
  return util.inspect(error);
}

function finish(error, value) {
  if (current === null) return;
  const id = current;
  current = null;
  const message = { type: 'result', id, output: chunks.join(''), truncated };
  if (error) message.error = describeError(error);
  else if (value !== undefined) message.value = util.inspect(value, { depth: 4, maxStringLength: 10000, maxArrayLength: 200 });
  process.send(message);
}

const errors = domain.create();
errors.on('error', (error) => finish(error));
const input = new PassThrough();
const output = new PassThrough();
output.resume();
const server = repl.start({
  input,
  output,
  prompt: '',
  terminal: false,
  useGlobal: false,
  ignoreUndefined: true,
  breakEvalOnSigint: true,
  domain: errors,
});
const replConsole = new Console({ stdout: sink(), stderr: sink() });
server.context.console = replConsole;

process.on('uncaughtException', (error) => {
  if (current !== null) finish(error);
  else replConsole.error('Uncaught (after the call that started it):', error);
});
process.on('unhandledRejection', (reason) => {
  replConsole.error('Unhandled promise rejection:', reason);
});

process.on('message', (message) => {
  if (!message || message.type !== 'eval') return;
  current = message.id;
  chunks = [];
  captured = 0;
  truncated = false;
  try {
    server.eval(message.code, server.context, 'repl', (error, value) => finish(error, value));
  } catch (error) {
    finish(error);
  }
});
// The parent is gone (it crashed or was killed): nothing can ask for results any more.
process.on('disconnect', () => process.exit(0));
process.send({ type: 'ready' });
`;
