/**
 * A tool's input schema as a web form, for /dashboard/tools ("what your assistant sees"): the
 * fields come from the same JSON Schema a client reads in `tools/list`, and a submitted form turns
 * back into the arguments an assistant would send. The tool's own validation then judges them, so
 * a person sees exactly the argument errors an assistant would.
 *
 * Empty fields are left out (the tool's default applies, as when an assistant omits them).
 * Choices of a list field are separate checkboxes named `<field>.<option>`, so the form posts flat
 * name/value pairs.
 */
import type { ToolDefinition } from "./define-tool";
import { inputJsonSchema } from "./register";

interface FieldBase {
  name: string;
  description: string;
}

export type FormField = FieldBase &
  (
    | { kind: "select"; options: string[]; default?: string }
    | { kind: "choices"; options: string[] }
    | { kind: "list" }
    | { kind: "text"; maxLength?: number }
    | { kind: "date" }
    | { kind: "number"; integer: boolean; min?: number; max?: number; default?: number }
    | { kind: "boolean"; default: boolean }
  );

interface JsonProperty {
  type?: string;
  enum?: string[];
  items?: JsonProperty;
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

function fieldOf(name: string, p: JsonProperty): FormField {
  const base = { name, description: p.description ?? "" };
  if (p.type === "array") {
    return p.items?.enum ? { ...base, kind: "choices", options: p.items.enum } : { ...base, kind: "list" };
  }
  if (p.enum) {
    return {
      ...base,
      kind: "select",
      options: p.enum,
      ...(typeof p.default === "string" ? { default: p.default } : {}),
    };
  }
  if (p.type === "boolean") return { ...base, kind: "boolean", default: p.default === true };
  if (p.type === "integer" || p.type === "number") {
    return {
      ...base,
      kind: "number",
      integer: p.type === "integer",
      ...(p.minimum !== undefined ? { min: p.minimum } : {}),
      ...(p.maximum !== undefined ? { max: p.maximum } : {}),
      ...(typeof p.default === "number" ? { default: p.default } : {}),
    };
  }
  if (name.endsWith("_date")) return { ...base, kind: "date" };
  return { ...base, kind: "text", ...(p.maxLength !== undefined ? { maxLength: p.maxLength } : {}) };
}

/** The form fields of `tool`, in the order of its input schema. */
export function formFieldsOf(tool: ToolDefinition): FormField[] {
  const schema = inputJsonSchema(tool) as { properties?: Record<string, JsonProperty> };
  return Object.entries(schema.properties ?? {}).map(([name, p]) => fieldOf(name, p));
}

/**
 * The arguments a submitted form stands for. Values the form could not hold as the right type
 * (a number field with text in it) are passed on as given, for the tool's validation to name.
 */
export function argsFromForm(fields: FormField[], form: Record<string, unknown>): Record<string, unknown> {
  const text = (key: string) => {
    const value = form[key];
    return typeof value === "string" ? value.trim() : "";
  };
  const args: Record<string, unknown> = {};
  for (const field of fields) {
    const value = text(field.name);
    switch (field.kind) {
      case "boolean":
        args[field.name] = value === "on" || value === "true";
        break;
      case "choices": {
        const picked = field.options.filter((option) => text(`${field.name}.${option}`) !== "");
        if (picked.length > 0) args[field.name] = picked;
        break;
      }
      case "list": {
        const items = value.split(/[\s,]+/).filter(Boolean);
        if (items.length > 0) args[field.name] = items;
        break;
      }
      case "number":
        if (value !== "") args[field.name] = Number.isFinite(Number(value)) ? Number(value) : value;
        break;
      default:
        if (value !== "") args[field.name] = value;
    }
  }
  return args;
}
