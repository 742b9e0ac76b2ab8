import { isWireTypeName, jsonSchemaOf, WIRE_TYPE_NAMES } from '@tierflow/protocol';
import { objectiveJsonSchema } from '@tierflow/runtime/admin';
import { EXIT, type CliIo } from '../io.js';

export interface SchemaOptions {
  readonly list?: boolean;
}

/** The objective file is not a wire type (the runtime reads it, not the protocol) but has a schema too. */
const OBJECTIVE = 'objective';
const TYPE_NAMES = [...WIRE_TYPE_NAMES, OBJECTIVE];

/** `tierflow schema [type]`: prints a wire type's JSON Schema (`message` when none is named), or the objective file's. */
export function schemaCommand(type: string | undefined, options: SchemaOptions, io: CliIo): number {
  if (options.list) {
    io.stdout(`${TYPE_NAMES.join('\n')}\n`);
    return EXIT.ok;
  }
  const name = type ?? 'message';
  if (name === OBJECTIVE) {
    io.stdout(`${JSON.stringify(objectiveJsonSchema(), null, 2)}\n`);
    return EXIT.ok;
  }
  if (!isWireTypeName(name)) {
    io.stderr(`unknown type "${name}"; the types are: ${TYPE_NAMES.join(', ')}\n`);
    return EXIT.unusable;
  }
  io.stdout(`${JSON.stringify(jsonSchemaOf(name), null, 2)}\n`);
  return EXIT.ok;
}
