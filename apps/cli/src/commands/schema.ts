import { isWireTypeName, jsonSchemaOf, WIRE_TYPE_NAMES } from '@tierflow/protocol';
import { EXIT, type CliIo } from '../io.js';

export interface SchemaOptions {
  readonly list?: boolean;
}

/** `tierflow schema [type]`: prints a wire type's JSON Schema (`message` when none is named). */
export function schemaCommand(type: string | undefined, options: SchemaOptions, io: CliIo): number {
  if (options.list) {
    io.stdout(`${WIRE_TYPE_NAMES.join('\n')}\n`);
    return EXIT.ok;
  }
  const name = type ?? 'message';
  if (!isWireTypeName(name)) {
    io.stderr(`unknown type "${name}"; the types are: ${WIRE_TYPE_NAMES.join(', ')}\n`);
    return EXIT.unusable;
  }
  io.stdout(`${JSON.stringify(jsonSchemaOf(name), null, 2)}\n`);
  return EXIT.ok;
}
