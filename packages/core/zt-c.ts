import { z } from 'zod';
import { savedConfigurationSchema, inlineConfigurationSchema } from './src/configuration/index.ts';
console.log(JSON.stringify(z.toJSONSchema(inlineConfigurationSchema, { io: 'input' }), null, 1));
