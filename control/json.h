/* Minimal JSON output for control's listings (stdout). */
#ifndef CONTROL_JSON_H
#define CONTROL_JSON_H

/* S as a JSON string, or null when S is NULL. */
void json_str(const char *s);

#endif
