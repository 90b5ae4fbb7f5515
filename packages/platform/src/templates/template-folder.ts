import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * Starter strategies live in `examples/<folder>/` with a `template.json` manifest. The folder is the
 * source of truth: the API lists what is there, and a malformed manifest is skipped with a warning.
 */
export const templateManifest = z.strictObject({
  name: z.string().min(1),
  language: z.string().min(1),
  description: z.string().min(1),
  entry: z.string().min(1),
});

export interface Template extends z.infer<typeof templateManifest> {
  templateId: string;
  files: string[];
}

/** Dependencies, caches and tool state that running or building a template leaves behind in its folder. */
const GENERATED_DIRECTORIES = new Set(['node_modules', '__pycache__', '.git', '.venv']);

/** Every file of a template, as `/`-separated paths relative to its folder, skipping generated directories. */
async function templateFiles(dir: string, prefix = ''): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isFile()) files.push(path);
    else if (entry.isDirectory() && !GENERATED_DIRECTORIES.has(entry.name)) {
      files.push(...(await templateFiles(dir, path)));
    }
  }
  return files;
}

export async function readTemplates(
  examplesDir: string,
  warn: (message: string) => void,
): Promise<Template[]> {
  let folders: string[];
  try {
    folders = (await readdir(examplesDir, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
  const templates: Template[] = [];
  for (const folder of folders.sort()) {
    const dir = join(examplesDir, folder);
    let manifest: unknown;
    try {
      manifest = JSON.parse(await readFile(join(dir, 'template.json'), 'utf8'));
    } catch {
      continue;
    }
    const parsed = templateManifest.safeParse(manifest);
    if (!parsed.success) {
      warn(`examples/${folder}/template.json is not a valid template manifest; skipped`);
      continue;
    }
    const files = (await templateFiles(dir)).sort();
    if (!files.includes(parsed.data.entry)) {
      warn(`examples/${folder}: entry file ${parsed.data.entry} does not exist; skipped`);
      continue;
    }
    templates.push({ templateId: folder, ...parsed.data, files });
  }
  return templates;
}
