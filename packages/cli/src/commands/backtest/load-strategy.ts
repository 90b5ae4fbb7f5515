import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Strategy, StrategyDefinitionError, strategyOf } from '@hindsight/sdk';

/**
 * Imports a strategy module (TypeScript or JavaScript) and returns its default export. TypeScript
 * is compiled on import by tsx, only for the module and what it imports, so a strategy needs no build
 * step of its own.
 */
export async function loadStrategy(file: string): Promise<Strategy> {
  const path = resolve(file);
  let module: unknown;
  try {
    if (/\.[cm]?tsx?$/.test(path)) {
      const { tsImport } = await import('tsx/esm/api');
      module = await tsImport(pathToFileURL(path).href, import.meta.url);
    } else {
      module = await import(pathToFileURL(path).href);
    }
  } catch (error) {
    // The module itself missing (not one it imports) is the user's typo.
    const missing = (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND';
    if (missing && (error as Error).message.includes(path)) {
      throw new StrategyDefinitionError(`${file}: no such strategy module`);
    }
    throw error;
  }
  return strategyOf(module, file);
}
