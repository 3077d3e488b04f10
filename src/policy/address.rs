//! Which addresses a run may connect to: loopback, private and link-local addresses can be
//! left out (`Config::exclude_loopback`, `exclude_private`, `exclude_link_local`), and are by
//! default when every start site is public, so that a page cannot make a CI runner a proxy
//! into its own network (`Config::allow_private` turns that off). Link-local and cloud
//! metadata addresses are left out by default whatever the start sites (a folder check of an
//! untrusted pull request too): nothing a checked page links to is served there. The check is made on the
//! address a connection would use, after resolution and on every redirect hop, so every
//! spelling of an address (`0x7f.1`, `2130706433`, `0177.0.0.1`, `127.1`,
//! `[::ffff:127.0.0.1]`, a name that resolves to it) is caught. Through a proxy the target is
//! checked the same way before the proxy is asked (`fetch/http/proxied_target.rs`).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A class of address that is not on the public internet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AddressClass {
    /// This machine: 127.0.0.0/8, `::1`, and the unspecified 0.0.0.0/8 and `::` (which reach
    /// this machine too).
    Loopback,
    /// A private network: 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT),
    /// fc00::/7 (unique local).
    Private,
    /// The link: 169.254/16 (cloud metadata `169.254.169.254` among them), fe80::/10.
    LinkLocal,
    /// A cloud's metadata service outside the link-local range ([`METADATA`]), which hands out
    /// the machine's credentials; refused with the link-local class.
    Metadata,
}

/// The cloud metadata services whose addresses are not link-local: AWS (`fd00:ec2::254`),
/// Google Cloud (`fd20:ce::254`), Alibaba Cloud (`100.100.100.200`), Oracle Cloud
/// (`192.0.0.192`) and Azure's platform address (`168.63.129.16`). The others (AWS, Google,
/// Azure, OpenStack, DigitalOcean, ECS's `169.254.170.2`) are in 169.254/16.
pub(crate) const METADATA: [IpAddr; 5] = [
    IpAddr::V6(Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254)),
    IpAddr::V6(Ipv6Addr::new(0xfd20, 0xce, 0, 0, 0, 0, 0, 0x254)),
    IpAddr::V4(Ipv4Addr::new(100, 100, 100, 200)),
    IpAddr::V4(Ipv4Addr::new(192, 0, 0, 192)),
    IpAddr::V4(Ipv4Addr::new(168, 63, 129, 16)),
];

impl AddressClass {
    /// The class as a reason shows it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            AddressClass::Loopback => "a loopback address",
            AddressClass::Private => "a private address",
            AddressClass::LinkLocal => "a link-local address",
            AddressClass::Metadata => "a cloud metadata address",
        }
    }
}

/// The class of `ip`, `None` for a public address. An IPv6 address that embeds an IPv4 one
/// (`::ffff:a.b.c.d`, `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) is classed by that address.
pub(crate) fn class(ip: IpAddr) -> Option<AddressClass> {
    let v4 = match ip {
        IpAddr::V4(v4) => Some(v4),
        IpAddr::V6(v6) => embedded_v4(v6),
    };
    if METADATA.contains(&v4.map_or(ip, IpAddr::V4)) {
        return Some(AddressClass::Metadata);
    }
    match ip {
        IpAddr::V4(v4) => class_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => class_v4(v4),
            None => class_v6(v6),
        },
    }
}

fn class_v4(ip: Ipv4Addr) -> Option<AddressClass> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() || a == 0 {
        Some(AddressClass::Loopback)
    } else if ip.is_link_local() {
        Some(AddressClass::LinkLocal)
    } else if ip.is_private() || (a == 100 && (64..128).contains(&b)) {
        Some(AddressClass::Private)
    } else {
        None
    }
}

fn class_v6(ip: Ipv6Addr) -> Option<AddressClass> {
    let first = ip.segments()[0];
    if ip.is_loopback() || ip.is_unspecified() {
        Some(AddressClass::Loopback)
    } else if first & 0xffc0 == 0xfe80 {
        Some(AddressClass::LinkLocal)
    } else if first & 0xfe00 == 0xfc00 {
        Some(AddressClass::Private)
    } else {
        None
    }
}

/// The IPv4 address an IPv6 one carries: mapped (`::ffff:0:0/96`), compatible (`::/96`,
/// except `::` and `::1`) or NAT64 (`64:ff9b::/96`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = ip.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    match s[..6] {
        [0, 0, 0, 0, 0, 0] if !ip.is_loopback() && !ip.is_unspecified() => Some(tail),
        [0x64, 0xff9b, 0, 0, 0, 0] => Some(tail),
        _ => None,
    }
}

/// The classes a run does not connect to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct AddressPolicy {
    pub(crate) loopback: bool,
    pub(crate) private: bool,
    pub(crate) link_local: bool,
}

impl AddressPolicy {
    /// Every class left out.
    pub(crate) const ALL: AddressPolicy = AddressPolicy {
        loopback: true,
        private: true,
        link_local: true,
    };

    /// `true` when nothing is left out.
    pub(crate) fn is_open(self) -> bool {
        self == AddressPolicy::default()
    }

    /// The policy for a start site's own host: loopback and private addresses are requested
    /// (a development server, an intranet the user named), link-local and metadata ones only
    /// when the run allows them (`--allow-private`), whoever named the start.
    pub(crate) fn for_start_site(self) -> AddressPolicy {
        AddressPolicy {
            loopback: false,
            private: false,
            link_local: self.link_local,
        }
    }

    /// Why `ip` is not to be connected to, or `None`.
    pub(crate) fn refuses(self, ip: IpAddr) -> Option<AddressClass> {
        let c = class(ip)?;
        let refused = match c {
            AddressClass::Loopback => self.loopback,
            AddressClass::Private => self.private,
            AddressClass::LinkLocal | AddressClass::Metadata => self.link_local,
        };
        refused.then_some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(s: &str) -> Option<AddressClass> {
        class(s.parse().unwrap())
    }

    #[test]
    fn every_local_class_and_spelling_is_known() {
        for ip in [
            "127.0.0.1",
            "127.255.0.9",
            "0.0.0.0",
            "::1",
            "::",
            "::ffff:127.0.0.1",
        ] {
            assert_eq!(of(ip), Some(AddressClass::Loopback), "{ip}");
        }
        for ip in [
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "100.64.0.1",
            "fd00:ec2::1",
            "fc00::1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
        ] {
            assert_eq!(of(ip), Some(AddressClass::Private), "{ip}");
        }
        for ip in [
            "169.254.169.254",
            "169.254.170.2",
            "fe80::1",
            "::ffff:169.254.169.254",
        ] {
            assert_eq!(of(ip), Some(AddressClass::LinkLocal), "{ip}");
        }
        for ip in [
            "fd00:ec2::254",
            "fd20:ce::254",
            "100.100.100.200",
            "::ffff:100.100.100.200",
            "64:ff9b::6464:64c8",
            "192.0.0.192",
            "168.63.129.16",
        ] {
            assert_eq!(of(ip), Some(AddressClass::Metadata), "{ip}");
        }
        for ip in [
            "93.184.216.34",
            "192.0.2.1",
            "172.32.0.1",
            "2001:db8::1",
            "100.128.0.1",
        ] {
            assert_eq!(of(ip), None, "{ip}");
        }
    }

    #[test]
    fn the_url_crate_spells_every_ipv4_form_as_one_address() {
        for host in [
            "0x7f.1",
            "2130706433",
            "0177.0.0.1",
            "127.1",
            "[::ffff:127.0.0.1]",
        ] {
            let url = url::Url::parse(&format!("http://{host}/")).unwrap();
            let ip: IpAddr = match url.host().unwrap() {
                url::Host::Ipv4(v4) => v4.into(),
                url::Host::Ipv6(v6) => v6.into(),
                url::Host::Domain(d) => panic!("{host} is the name {d}"),
            };
            assert_eq!(class(ip), Some(AddressClass::Loopback), "{host}");
        }
    }

    #[test]
    fn a_policy_refuses_only_its_classes() {
        let p = AddressPolicy {
            link_local: true,
            ..AddressPolicy::default()
        };
        assert_eq!(
            p.refuses("169.254.169.254".parse().unwrap()),
            Some(AddressClass::LinkLocal)
        );
        assert_eq!(
            p.refuses("100.100.100.200".parse().unwrap()),
            Some(AddressClass::Metadata)
        );
        assert_eq!(p.refuses("127.0.0.1".parse().unwrap()), None);
        assert!(AddressPolicy::default().is_open());
        assert!(!AddressPolicy::ALL.is_open());
    }
}
