# owlet: the first time root logs in on a terminal and has no password yet,
# set one through passwdqc (owlet-setup(8) offers a random passphrase).
# Root and administrators log in over ssh with keys; the password is for
# the console.
if [ "$(id -u)" = 0 ] && [ -t 0 ] && [ -x /usr/sbin/owlet-setup ]; then
	/usr/sbin/owlet-setup root-password --if-unset ||
		echo "owlet-setup: root has no password yet; run: owlet-setup root-password" >&2
fi
