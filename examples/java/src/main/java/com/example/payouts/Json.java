package com.example.payouts;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tiny JSON reader and writer, so the example needs nothing but the JDK. Reading gives
 * {@code Map<String, Object>} (keys in order), {@code List<Object>}, {@link String},
 * {@link BigDecimal} (every number, exactly as written), {@link Boolean} or {@code null}; anything
 * that is not JSON is refused with an {@link IllegalArgumentException} naming the offset.
 * Writing takes the same types (and any other {@link Number}).
 */
public final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** The value {@code text} holds; whitespace around it is allowed, anything else after it is not. */
    public static Object parse(String text) {
        Json reader = new Json(text);
        reader.skipSpace();
        Object value = reader.value();
        reader.skipSpace();
        if (reader.at != text.length()) throw reader.error("unexpected " + reader.describe() + " after the value");
        return value;
    }

    /** The JSON object {@code text} holds. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        Object value = parse(text);
        if (!(value instanceof Map)) throw new IllegalArgumentException("JSON: expected an object, got " + text);
        return (Map<String, Object>) value;
    }

    private Object value() {
        if (at >= text.length()) throw error("unexpected end of input, expected a value");
        char c = text.charAt(at);
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return number();
                throw error("unexpected " + describe() + ", expected a value");
        }
    }

    private Map<String, Object> object() {
        Map<String, Object> map = new LinkedHashMap<>();
        at++; // {
        skipSpace();
        if (peek('}')) return map;
        for (;;) {
            skipSpace();
            if (at >= text.length() || text.charAt(at) != '"') throw error("unexpected " + describe() + ", expected a string key");
            String key = string();
            skipSpace();
            expect(':');
            skipSpace();
            map.put(key, value());
            skipSpace();
            if (peek('}')) return map;
            expect(',');
        }
    }

    private List<Object> array() {
        List<Object> list = new ArrayList<>();
        at++; // [
        skipSpace();
        if (peek(']')) return list;
        for (;;) {
            skipSpace();
            list.add(value());
            skipSpace();
            if (peek(']')) return list;
            expect(',');
        }
    }

    private String string() {
        at++; // opening quote
        StringBuilder out = new StringBuilder();
        for (;;) {
            if (at >= text.length()) throw error("unterminated string");
            char c = text.charAt(at++);
            if (c == '"') return out.toString();
            if (c < 0x20) throw error("control character U+" + String.format("%04X", (int) c) + " in a string", at - 1);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) throw error("unterminated escape");
            char e = text.charAt(at++);
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (at + 4 > text.length()) throw error("\\u needs four hex digits");
                    int code = 0;
                    for (int i = 0; i < 4; i++) {
                        int digit = Character.digit(text.charAt(at + i), 16);
                        if (digit < 0) throw error("\\u needs four hex digits", at + i);
                        code = code * 16 + digit;
                    }
                    at += 4;
                    out.append((char) code); // a surrogate pair arrives as two escapes, appended in turn
                }
                default -> throw error("unknown escape \\" + e, at - 1);
            }
        }
    }

    private BigDecimal number() {
        int start = at;
        peek('-'); // an optional minus sign
        if (peek('0')) {
            if (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') throw error("a number has no leading zeros");
        } else if (!digits()) {
            throw error("a number needs digits");
        }
        if (peek('.') && !digits()) throw error("a number needs digits after the decimal point");
        if (at < text.length() && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
            at++;
            if (!peek('+')) peek('-');
            if (!digits()) throw error("a number needs digits in its exponent");
        }
        return new BigDecimal(text.substring(start, at));
    }

    private boolean digits() {
        int start = at;
        while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') at++;
        return at > start;
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, at)) throw error("unexpected " + describe() + ", expected a value");
        at += word.length();
        return value;
    }

    private boolean peek(char c) {
        if (at < text.length() && text.charAt(at) == c) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!peek(c)) throw error("unexpected " + describe() + ", expected '" + c + "'");
    }

    private void skipSpace() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) at++;
    }

    private String describe() {
        return at >= text.length() ? "end of input" : "'" + text.charAt(at) + "'";
    }

    private IllegalArgumentException error(String what) {
        return error(what, at);
    }

    private IllegalArgumentException error(String what, int offset) {
        String near = text.substring(Math.max(0, offset - 20), Math.min(text.length(), offset + 20));
        return new IllegalArgumentException("JSON: " + what + " at offset " + offset + " (near: " + near + ")");
    }

    /** {@code value} as JSON text: maps (string keys), lists, strings, numbers, booleans and null. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            quote(s, out);
        } else if (value instanceof BigDecimal d) {
            out.append(d.toPlainString());
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) throw new IllegalArgumentException("JSON has no " + d);
            out.append(BigDecimal.valueOf(d).toPlainString());
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                if (!(entry.getKey() instanceof String key)) throw new IllegalArgumentException("JSON keys are strings, not " + entry.getKey());
                if (!first) out.append(',');
                first = false;
                quote(key, out);
                out.append(':');
                write(entry.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) out.append(',');
                write(list.get(i), out);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("JSON cannot write a " + value.getClass().getName());
        }
    }

    private static void quote(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
            }
        }
        out.append('"');
    }
}
