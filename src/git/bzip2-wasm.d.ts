/** What forgekit uses of bzip2-wasm, whose module has no types: libbzip2 1.0.8 compiled to WebAssembly. */
declare module 'bzip2-wasm' {
  export default class Bzip2 {
    /** Loads and compiles the WebAssembly module. */
    init(): Promise<void>;
    /** bzip2 of `input` with blocks of `blockSize` × 100 kB, into at most `outputLength` bytes. */
    compress(input: Uint8Array, blockSize: number, outputLength: number): Uint8Array;
  }
}
