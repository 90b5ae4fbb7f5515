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
    const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((d) => d.isFile())
      .map((d) => join(d.parentPath, d.name).slice(dir.length + 1))
      .sort();
    if (!files.includes(parsed.data.entry)) {
      warn(`examples/${folder}: entry file ${parsed.data.entry} does not exist; skipped`);
      continue;
    }
    templates.push({ templateId: folder, ...parsed.data, files });
  }
  return templates;
}
