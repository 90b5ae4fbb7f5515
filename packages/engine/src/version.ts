/**
 * The engine's version, stamped in every run's result metadata and in the platform's run manifests:
 * one constant, so the standalone gateway and the platform stamp the same engine (equal manifests
 * give byte-identical results, decision 40). Kept equal to this package's `package.json` version
 * (engine/test/version.test.ts).
 */
export const ENGINE_VERSION = '0.1.0';
