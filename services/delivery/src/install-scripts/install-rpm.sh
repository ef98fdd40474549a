#!/usr/bin/env bash
# Packyard RPM repository installer (RHEL and its rebuilds, Fedora, Amazon Linux, openSUSE/SLES).
#
# Served, without authentication (it holds no secret), at
#   GET {origin}/api/install-rpm.sh?repo=<repositoryId>
# and run as root with the repository token as the only argument:
#   curl -fsSL "{origin}/api/install-rpm.sh?repo=<repositoryId>" | sudo bash -s -- <TOKEN>
#
# The delivery module fills the @NAME@ placeholders below with shell-quoted values
# (renderInstallScript in install-script.ts); nothing else in this file is templated.
#   @REPOSITORY_NAME@  shown in messages and as the repository's name
#   @FILE_STEM@        file-name-safe repository name: repository id and file names
#   @REPOSITORY_URL@   {origin}/rpm/{workspaceSlug}/{repoName}
#   @PUBLIC_KEY_URL@   the repository's armored public key (gpgkey=)
#   @STOCKED@          the distro/version pairs whose index held packages when the script was
#                      served, space-separated; empty before the first upload
#
# Trust model: repo_gpgcheck=1 makes dnf/yum/zypper verify repodata/repomd.xml against the
# repository key (which pins every package's SHA-256), and gpgcheck=1 (zypper:
# pkg_gpgcheck=1) makes rpm verify each package's own header signature, made with the same
# key when the package was uploaded, so a package stays verifiable outside the repository.
#
# PACKYARD_INSTALL_ROOT=<dir> configures an image or install root instead of this machine
# (its etc/os-release decides the distribution; dnf runs with --installroot).
set -euo pipefail

REPOSITORY_NAME=@REPOSITORY_NAME@
FILE_STEM=@FILE_STEM@
REPOSITORY_URL=@REPOSITORY_URL@
PUBLIC_KEY_URL=@PUBLIC_KEY_URL@
STOCKED=@STOCKED@

ROOT="${PACKYARD_INSTALL_ROOT:-}"
step="starting"
trap 'echo "packyard: installing ${REPOSITORY_NAME} failed while ${step}." >&2' ERR

fail() {
  echo "packyard: $*" >&2
  exit 1
}

# Reads one field of os-release in a subshell: the file assigns NAME, ID, VERSION...,
# which must not overwrite this script's variables.
os_release() {
  (
    # shellcheck disable=SC1090,SC1091
    . "${ROOT}/etc/os-release"
    printf '%s' "${!1:-}"
  )
}

TOKEN="${1:-}"
[ -n "$TOKEN" ] || fail "usage: install-rpm.sh <TOKEN> (the repository token from the Install tab)"
# The token goes into key=value files: whitespace or newlines would change their meaning.
case "$TOKEN" in
  *[!A-Za-z0-9._~+/=-]*) fail "the token contains characters a Packyard token never has; copy it again from the Install tab" ;;
esac
[ "$(id -u)" -eq 0 ] || fail "run as root, e.g. curl -fsSL '<script URL>' | sudo bash -s -- <TOKEN>"
[ -r "${ROOT}/etc/os-release" ] || fail "cannot read ${ROOT}/etc/os-release to detect the distribution"

step="detecting the distribution"
os_id="$(os_release ID)"
os_id_like=" $(os_release ID_LIKE) "
version_id="$(os_release VERSION_ID)"
family=""
case "$os_id" in
  rhel | centos | rocky | almalinux | ol | eurolinux | cloudlinux | virtuozzo) family="el" ;;
  fedora) family="fedora" ;;
  amzn) family="amzn" ;;
  opensuse-tumbleweed | opensuse-slowroll) family="tumbleweed" ;;
  opensuse-leap | sles | sled) family="leap" ;;
  *)
    case "$os_id_like" in
      *" rhel "* | *" centos "* | *" fedora "*) family="el" ;;
      *" suse "* | *" opensuse "*) family="leap" ;;
    esac
    ;;
esac
case "$family" in
  el) distro_path="el/${version_id%%.*}" ;;
  fedora) distro_path="fedora/${version_id}" ;;
  # Amazon Linux 2 is built from EL7 sources, Amazon Linux 2023 from Fedora/EL9.
  amzn) case "$version_id" in 2) distro_path="el/7" ;; *) distro_path="el/9" ;; esac ;;
  tumbleweed) distro_path="opensuse/tumbleweed" ;;
  leap) distro_path="opensuse/leap-${version_id}" ;;
  *) fail "unsupported distribution '${os_id}': install-rpm.sh supports RHEL-compatible systems, Fedora, Amazon Linux and openSUSE/SLES; use install-deb.sh on Debian or Ubuntu" ;;
esac
# Every distribution is published, empty ones too: a machine whose own has no packages
# would be set up and then find nothing to install, so it is told where the packages are.
case " ${STOCKED} " in
  "  " | *" ${distro_path} "*) ;;
  *) fail "${REPOSITORY_NAME} has no packages for ${distro_path} (this machine, ${os_id} ${version_id}); it has packages for: ${STOCKED// /, }. Upload packages for ${distro_path} (or any-distro/any-version)." ;;
esac
base_url="${REPOSITORY_URL}/${distro_path}"

if [ "$family" = "tumbleweed" ] || [ "$family" = "leap" ]; then
  command -v zypper >/dev/null 2>&1 || fail "zypper not found on this ${os_id} system"
  credentials_file="${ROOT}/etc/zypp/credentials.d/${FILE_STEM}"
  step="storing the token in ${credentials_file}"
  install -d -m 0755 "${ROOT}/etc/zypp/credentials.d"
  (
    umask 077
    # The token is the user name. libzypp drops stored credentials whose password is empty
    # and then sends none, so the token is repeated as the password, the one password
    # Packyard takes besides an empty one. (A token in the baseurl would go with an empty
    # password, but zypper prints and logs that URL with its user name.)
    printf 'username=%s\npassword=%s\n' "$TOKEN" "$TOKEN" >"$credentials_file"
  )

  repo_file="${ROOT}/etc/zypp/repos.d/${FILE_STEM}.repo"
  step="writing ${repo_file}"
  install -d -m 0755 "${ROOT}/etc/zypp/repos.d"
  cat >"$repo_file" <<REPO
[${FILE_STEM}]
name=${REPOSITORY_NAME}
baseurl=${base_url}?credentials=${FILE_STEM}
enabled=1
autorefresh=1
type=rpm-md
repo_gpgcheck=1
pkg_gpgcheck=1
gpgkey=${PUBLIC_KEY_URL}
REPO
  chmod 0644 "$repo_file"

  step="refreshing ${REPOSITORY_NAME} (zypper refresh); check the token and that packages were published for ${distro_path}"
  # The key zypper imports is the one gpgkey= names; repomd.xml must still verify against it.
  zypper_root=()
  [ -z "$ROOT" ] || zypper_root=(--root "$ROOT")
  # ${a[@]+"${a[@]}"}: bash before 4.4 (EL7) treats an empty array as unset under set -u.
  zypper ${zypper_root[@]+"${zypper_root[@]}"} --non-interactive --gpg-auto-import-keys refresh "$FILE_STEM"
  install_hint="sudo zypper install <package>"
else
  if command -v dnf >/dev/null 2>&1; then package_manager=dnf; else package_manager=yum; fi
  command -v "$package_manager" >/dev/null 2>&1 || fail "neither dnf nor yum found on this ${os_id} system"
  # The token is the user name and the password is empty, which dnf sends as it is. yum 3
  # (EL7, Amazon Linux 2; urlgrabber) sends no credentials unless both are set, so it gets
  # the token repeated as the password, the one password Packyard takes besides an empty one.
  password=""
  [ "$package_manager" = dnf ] || password="$TOKEN"

  repo_file="${ROOT}/etc/yum.repos.d/${FILE_STEM}.repo"
  step="writing ${repo_file} (it holds the token, so it is readable by root only)"
  install -d -m 0755 "${ROOT}/etc/yum.repos.d"
  (
    umask 077
    # skip_if_unavailable=False: otherwise a repository that fails verification is
    # skipped with exit status 0 and the failure would go unnoticed.
    cat >"$repo_file" <<REPO
[${FILE_STEM}]
name=${REPOSITORY_NAME}
baseurl=${base_url}
enabled=1
repo_gpgcheck=1
gpgcheck=1
gpgkey=${PUBLIC_KEY_URL}
username=${TOKEN}
password=${password}
skip_if_unavailable=False
metadata_expire=300
REPO
  )

  step="refreshing ${REPOSITORY_NAME} (${package_manager} makecache); check the token and that packages were published for ${distro_path}"
  package_manager_root=()
  [ -z "$ROOT" ] || package_manager_root=(--installroot="$ROOT" --setopt=reposdir="${ROOT}/etc/yum.repos.d" --releasever="${version_id%%.*}")
  "$package_manager" ${package_manager_root[@]+"${package_manager_root[@]}"} -y --disablerepo='*' --enablerepo="$FILE_STEM" makecache
  install_hint="sudo ${package_manager} install <package>"
fi

step="finishing"
echo "packyard: ${REPOSITORY_NAME} is ready: ${base_url}"
echo "packyard: install packages with: ${install_hint}"
