import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PlatformContext } from '../http/context.ts';
import { envelope, security } from '../http/schemas.ts';
import { readTemplates } from '../templates/template-folder.ts';

const templateSchema = z
  .object({
    templateId: z.string().meta({ description: 'Folder name under examples/.' }),
    name: z.string(),
    language: z.string().meta({ description: 'Language of the strategy, e.g. python or typescript.' }),
    description: z.string(),
    entry: z.string().meta({ description: 'Entry file, relative to the template folder.' }),
    files: z.array(z.string()).meta({ description: 'Every file of the template, relative paths.' }),
  })
  .meta({ id: 'Template' });

export async function templateRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/templates',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['Reference'],
        operationId: 'listTemplates',
        summary: 'List strategy starter templates',
        security: security.public,
        response: { 200: envelope(z.array(templateSchema)) },
      },
    },
    async (request) => ({ data: await readTemplates(ctx.examplesDir, (m) => request.log.warn(m)) }),
  );
}
