#ifndef TCB_EXPORT_H
#define TCB_EXPORT_H
/* Objects are built -fvisibility=hidden; the version script names the API. */
#define TCB_EXPORT	__attribute__((visibility("default")))
#endif
