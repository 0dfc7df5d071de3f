/**
 * Counting newlines is what skipping to line N of a large file costs. A tiny hand-assembled
 * WebAssembly module compares 16 bytes per instruction (SIMD), several times faster than a JS loop
 * over `indexOf`; where WebAssembly SIMD is unavailable the JS loop is used instead.
 */

function leb128(value: number): number[] {
  const bytes: number[] = [];
  let rest = value >>> 0;
  do {
    let byte = rest & 0x7f;
    rest >>>= 7;
    if (rest !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (rest !== 0);
  return bytes;
}

function section(id: number, content: number[]): number[] {
  return [id, ...leb128(content.length), ...content];
}

function name(text: string): number[] {
  return [...leb128(text.length), ...[...text].map((char) => char.charCodeAt(0))];
}

// count(ptr, len) -> number of 0x0A bytes in memory[ptr, ptr+len)
// locals: 0 ptr, 1 len, 2 simdEnd, 3 total, 4 end, 5 v128 of newlines
const countBody = [
  0x02,
  0x03,
  0x7f,
  0x01,
  0x7b, // locals: 3 x i32, 1 x v128
  0x20,
  0x00,
  0x20,
  0x01,
  0x6a,
  0x21,
  0x04, // end = ptr + len
  0x41,
  0x0a,
  0xfd,
  0x0f,
  0x21,
  0x05, // needle = i8x16.splat(10)
  0x20,
  0x00,
  0x20,
  0x01,
  0x41,
  0x70,
  0x71,
  0x6a,
  0x21,
  0x02, // simdEnd = ptr + (len & -16)
  0x02,
  0x40,
  0x03,
  0x40, // block loop
  0x20,
  0x00,
  0x20,
  0x02,
  0x4f,
  0x0d,
  0x01, // if ptr >= simdEnd break
  0x20,
  0x03, // total +
  0x20,
  0x00,
  0xfd,
  0x00,
  0x00,
  0x00, // v128.load ptr
  0x20,
  0x05,
  0xfd,
  0x23, // i8x16.eq needle
  0xfd,
  0x64,
  0x69, // i8x16.bitmask, i32.popcnt
  0x6a,
  0x21,
  0x03, // total = total + popcount
  0x20,
  0x00,
  0x41,
  0x10,
  0x6a,
  0x21,
  0x00, // ptr += 16
  0x0c,
  0x00,
  0x0b,
  0x0b, // continue; end loop; end block
  0x02,
  0x40,
  0x03,
  0x40, // block loop (tail, byte by byte)
  0x20,
  0x00,
  0x20,
  0x04,
  0x4f,
  0x0d,
  0x01, // if ptr >= end break
  0x20,
  0x03,
  0x20,
  0x00,
  0x2d,
  0x00,
  0x00,
  0x41,
  0x0a,
  0x46,
  0x6a,
  0x21,
  0x03, // total += mem[ptr] == 10
  0x20,
  0x00,
  0x41,
  0x01,
  0x6a,
  0x21,
  0x00, // ptr += 1
  0x0c,
  0x00,
  0x0b,
  0x0b, // continue; end loop; end block
  0x20,
  0x03,
  0x0b, // return total
];

function moduleBytes(pages: number): Uint8Array {
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f]),
    ...section(3, [0x01, 0x00]),
    ...section(5, [0x01, 0x00, ...leb128(pages)]),
    ...section(7, [0x02, ...name('count'), 0x00, 0x00, ...name('memory'), 0x02, 0x00]),
    ...section(10, [0x01, ...leb128(countBody.length), ...countBody]),
  ]);
}

/**
 * The counting kernel as WebAssembly bytes, with memory for a buffer of `size` bytes at offset 0
 * (exports `memory` and `count(pointer, length)`), for threads that compile their own copy.
 */
export function newlineCountModule(size: number): Uint8Array {
  return moduleBytes(Math.ceil(size / pageSize));
}

/** A reusable read buffer whose newlines can be counted quickly. */
export interface NewlineCounter {
  buffer: Buffer;
  /** Newlines in `buffer[start, end)`. */
  count(start: number, end: number): number;
}

/** The part of the WebAssembly API used here (the project's TypeScript lib has no DOM types). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
const pageSize = 65_536;
const compiled = new Map<number, object | null>();

function compile(pages: number): object | null {
  if (!compiled.has(pages)) {
    try {
      if (!wasm) throw new Error('no WebAssembly');
      compiled.set(pages, new wasm.Module(moduleBytes(pages)));
    } catch {
      compiled.set(pages, null); // no SIMD support: use the JS path
    }
  }
  return compiled.get(pages) ?? null;
}

function jsCounter(size: number): NewlineCounter {
  const buffer = Buffer.allocUnsafe(size);
  return {
    buffer,
    count(start, end) {
      let total = 0;
      for (
        let index = buffer.indexOf(10, start);
        index !== -1 && index < end;
        index = buffer.indexOf(10, index + 1)
      )
        total++;
      return total;
    },
  };
}

/**
 * A counter with its own buffer of `size` bytes. Each caller gets its own instance (and memory), so
 * concurrent reads never share a buffer. `forceJs` exists for tests of the fallback.
 */
export function createNewlineCounter(size: number, forceJs = false): NewlineCounter {
  const module = forceJs ? null : compile(Math.ceil(size / pageSize));
  if (!module || !wasm) return jsCounter(size);
  const instance = new wasm.Instance(module);
  const memory = instance.exports['memory'] as { buffer: ArrayBuffer };
  const count = instance.exports['count'] as (pointer: number, length: number) => number;
  const buffer = Buffer.from(memory.buffer, 0, size);
  return { buffer, count: (start, end) => (end > start ? count(start, end - start) : 0) };
}

// Idle counters kept for reuse: allocating a fresh multi-megabyte WebAssembly memory per read costs more
// than the read itself once the line index is warm. Each caller owns the counter it took until released.
const idle: NewlineCounter[] = [];
const maxIdle = 3;

/** A counter of exactly `size` bytes from the idle pool, or a new one. */
export function takeNewlineCounter(size: number): NewlineCounter {
  const index = idle.findIndex((counter) => counter.buffer.length === size);
  if (index === -1) return createNewlineCounter(size);
  return idle.splice(index, 1)[0] as NewlineCounter;
}

/** Returns a counter to the pool once its caller is done with it. */
export function releaseNewlineCounter(counter: NewlineCounter): void {
  if (idle.length < maxIdle) idle.push(counter);
}
