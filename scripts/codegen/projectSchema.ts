// spec/project.schema.json → generated/project/: the ProjectFile type and a standalone ajv
// validator, so the project file is contract-first like the APIs.
import fs from 'node:fs';
import path from 'node:path';
import { compile } from 'json-schema-to-typescript';
import Ajv2020Module from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';

const cjs = (m: any) => m.default ?? m;
const Ajv2020 = cjs(Ajv2020Module);
const standaloneCode = cjs(standaloneModule);

export const PROJECT_SCHEMA_FILE = 'spec/project.schema.json';

/** `toEsm` turns the CommonJS requires of ajv's standalone code into imports (see generate.ts). */
export async function generateProjectSchema(
  root: string,
  outRoot: string,
  banner: (comment?: string) => string,
  toEsm: (code: string) => string,
): Promise<void> {
  const schema = JSON.parse(fs.readFileSync(path.join(root, PROJECT_SCHEMA_FILE), 'utf8'));
  const outDir = path.join(outRoot, 'project');
  fs.mkdirSync(outDir, { recursive: true });
  const ts = await compile(schema, 'ProjectFile', {
    bannerComment: '',
    additionalProperties: false,
    unreachableDefinitions: false,
    format: true,
    strictIndexSignatures: false,
  });
  const keys = Object.keys(schema.properties).filter((k) => k !== '$schema');
  fs.writeFileSync(
    path.join(outDir, 'types.gen.ts'),
    banner() +
      '/* eslint-disable */\n' +
      ts +
      `\n/** The top-level keys the schema describes (others are warned about). */\nexport const PROJECT_KEYS = ${JSON.stringify(keys)} as const;\n`,
  );
  const ajv = new Ajv2020({ code: { source: true, esm: true, lines: true }, allErrors: true, strict: false });
  ajv.addSchema(schema, 'project');
  const code = standaloneCode(ajv, { validateProject: 'project' }) as string;
  fs.writeFileSync(path.join(outDir, 'validator.gen.js'), banner() + '/* eslint-disable */\n' + toEsm(code));
  fs.writeFileSync(
    path.join(outDir, 'validator.gen.d.ts'),
    banner() +
      "import type { ErrorObject } from 'ajv';\nexport interface ProjectValidator { (data: unknown): boolean; errors?: ErrorObject[] | null }\nexport declare const validateProject: ProjectValidator;\n",
  );
}
